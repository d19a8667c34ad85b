import { ConflictError } from '../../errors.js';
import { ENDED_SESSION_KEPT_MS, type AccessKind, type AccessStore, type Person } from '../access-store.js';
import { toPerson, type Row } from '../rows.js';
import type { PgDb } from './pg-db.js';

/** last_seen_at is kept to the minute: a signed-in person's every request need not be a write. */
const SEEN_EVERY_MS = 60_000;

const taken = (name: string) =>
  new ConflictError(`${name} already has access`, [{ verb: 'access-revoke', handle: name }]);

/**
 * PostgreSQL's settings and people (shop serve's access), each method one statement or one
 * transaction, so two processes adding the same name or creating the same key never both
 * win: the first writer's row stands, the second meets it (ON CONFLICT, or a row lock).
 */
export class PgAccess implements AccessStore {
  constructor(private readonly db: PgDb) {}

  async getSetting(name: string): Promise<string | null> {
    const [row] = await this.db.query<Row>('SELECT value FROM settings WHERE name = $1', [name]);
    return row ? String(row.value) : null;
  }

  async setSetting(name: string, value: string): Promise<void> {
    await this.db.query(
      'INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      [name, value, this.db.now()],
    );
  }

  async initSetting(name: string, value: string): Promise<string> {
    // One statement: DO NOTHING waits for a racing insert to commit, and the select then reads it.
    const [row] = await this.db.query<Row>(
      `WITH added AS (INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING value)
       SELECT value FROM added UNION ALL SELECT value FROM settings WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM added)`,
      [name, value, this.db.now()],
    );
    return row ? String(row.value) : (await this.getSetting(name))!;
  }

  async addPerson(p: { name: string; tokenHash: string; by: string; kind?: AccessKind }): Promise<void> {
    try {
      await this.db.tx(async (q) => {
        const [existing] = await q.query<Row>('SELECT revoked_at FROM people WHERE name = $1 FOR UPDATE', [p.name]);
        if (existing && existing.revoked_at == null) throw taken(p.name);
        await q.query('DELETE FROM people WHERE name = $1', [p.name]);
        await q.query(
          'INSERT INTO people (name, token_hash, created_at, created_by, kind) VALUES ($1, $2, $3, $4, $5)',
          [p.name, p.tokenHash, this.db.now(), p.by, p.kind ?? 'login'],
        );
      });
    } catch (e) {
      // Two first adds of one name: the second's insert meets the first's row.
      if ((e as { code?: string }).code === '23505' && (e as { constraint?: string }).constraint === 'people_pkey')
        throw taken(p.name);
      throw e;
    }
  }

  async findPersonByTokenHash(hash: string): Promise<Person | null> {
    const [row] = await this.db.query<Row>('SELECT * FROM people WHERE token_hash = $1 AND revoked_at IS NULL', [hash]);
    if (!row) return null;
    const now = this.db.now();
    if (row.last_seen_at != null && now - Number(row.last_seen_at) < SEEN_EVERY_MS) return toPerson(row);
    // Revoked since the read: not found.
    const touched = await this.db.query(
      'UPDATE people SET last_seen_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL RETURNING name',
      [now, hash],
    );
    return touched.length ? toPerson({ ...row, last_seen_at: now }) : null;
  }

  async listPeople(): Promise<Person[]> {
    // C collation: by name as SQLite's BINARY order sorts, whatever the database's locale.
    return (await this.db.query<Row>('SELECT * FROM people ORDER BY name COLLATE "C"')).map(toPerson);
  }

  async endWebSession(id: string, expiresAt: number): Promise<void> {
    const now = this.db.now();
    await this.db.tx(async (q) => {
      await q.query(
        'INSERT INTO ended_sessions (id, ended_at, expires_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [id, now, expiresAt],
      );
      await q.query('DELETE FROM ended_sessions WHERE expires_at < $1', [now - ENDED_SESSION_KEPT_MS]);
    });
  }

  async webSessionEnded(id: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM ended_sessions WHERE id = $1', [id])).length > 0;
  }

  async revokePerson(name: string): Promise<boolean> {
    return (
      (
        await this.db.query('UPDATE people SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL RETURNING name', [
          this.db.now(),
          name,
        ])
      ).length > 0
    );
  }
}
