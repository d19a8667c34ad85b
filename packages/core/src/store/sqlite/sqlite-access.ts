import type Database from 'better-sqlite3';
import { ConflictError } from '../../errors.js';
import { ENDED_SESSION_KEPT_MS, type AccessKind, type Person } from '../access-store.js';
import { toPerson, type Row } from '../rows.js';
import { q, type Tx } from './sqlite-prepared.js';

/*
 * SQLite's settings and people, each function one immediate transaction (the caller's
 * `tx`), so two processes adding the same name or creating the same key never both win.
 */

export function getSetting(db: Database.Database, name: string): string | null {
  const row = q(db, 'SELECT value FROM settings WHERE name = ?').get(name) as Row | undefined;
  return row ? String(row.value) : null;
}

export function setSetting(db: Database.Database, tx: Tx, now: number, name: string, value: string): void {
  tx(() =>
    q(
      db,
      'INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    ).run(name, value, now),
  );
}

export function initSetting(db: Database.Database, tx: Tx, now: number, name: string, value: string): string {
  return tx(() => {
    q(db, 'INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING').run(
      name,
      value,
      now,
    );
    return getSetting(db, name)!;
  });
}

export function addPerson(
  db: Database.Database,
  tx: Tx,
  now: number,
  p: { name: string; tokenHash: string; by: string; kind?: AccessKind },
): void {
  tx(() => {
    const existing = q(db, 'SELECT revoked_at FROM people WHERE name = ?').get(p.name) as Row | undefined;
    if (existing && existing.revoked_at == null) {
      throw new ConflictError(`${p.name} already has access`, [{ verb: 'access-revoke', handle: p.name }]);
    }
    q(db, 'DELETE FROM people WHERE name = ?').run(p.name);
    q(db, 'INSERT INTO people (name, token_hash, created_at, created_by, kind) VALUES (?, ?, ?, ?, ?)').run(
      p.name,
      p.tokenHash,
      now,
      p.by,
      p.kind ?? 'login',
    );
  });
}

/** last_seen_at is kept to the minute: a signed-in person's every request need not be a write. */
const SEEN_EVERY_MS = 60_000;

export function findPersonByTokenHash(db: Database.Database, tx: Tx, now: number, hash: string): Person | null {
  const row = q(db, 'SELECT * FROM people WHERE token_hash = ? AND revoked_at IS NULL').get(hash) as Row | undefined;
  if (!row) return null;
  if (row.last_seen_at != null && now - Number(row.last_seen_at) < SEEN_EVERY_MS) return toPerson(row);
  // Revoked since the read: not found.
  const touched = tx(
    () =>
      q(db, 'UPDATE people SET last_seen_at = ? WHERE token_hash = ? AND revoked_at IS NULL').run(now, hash).changes,
  );
  return touched ? toPerson({ ...row, last_seen_at: now }) : null;
}

export function listPeople(db: Database.Database): Person[] {
  return (q(db, 'SELECT * FROM people ORDER BY name').all() as Row[]).map(toPerson);
}

export function endWebSession(db: Database.Database, tx: Tx, now: number, id: string, expiresAt: number): void {
  tx(() => {
    q(db, 'INSERT INTO ended_sessions (id, ended_at, expires_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING').run(
      id,
      now,
      expiresAt,
    );
    q(db, 'DELETE FROM ended_sessions WHERE expires_at < ?').run(now - ENDED_SESSION_KEPT_MS);
  });
}

export function webSessionEnded(db: Database.Database, id: string): boolean {
  return q(db, 'SELECT 1 FROM ended_sessions WHERE id = ?').get(id) !== undefined;
}

export function revokePerson(db: Database.Database, tx: Tx, now: number, name: string): boolean {
  return tx(
    () => q(db, 'UPDATE people SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(now, name).changes > 0,
  );
}
