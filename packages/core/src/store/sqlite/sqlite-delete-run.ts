import type Database from 'better-sqlite3';
import type { DeleteRunOutcome } from '../store.js';

const ENDED = "('completed','stuck','failed')";

/**
 * Deletes an ended run and every row that names it, inside the caller's transaction. Checked
 * here, in that transaction: the run has ended and no live driver holds it (an owner whose
 * lease is still running may be finishing up). Tables are found by their run_id column, so a
 * table added later is not left holding rows of a run that is gone.
 */
export function deleteRunRows(db: Database.Database, runId: number, now: number): DeleteRunOutcome {
  const run = db
    .prepare(`SELECT status IN ${ENDED} AS ended, owner_token, lease_until FROM runs WHERE id = ?`)
    .get(runId) as { ended: number; owner_token: string | null; lease_until: number | null } | undefined;
  if (!run) return 'missing';
  if (!run.ended) return 'not_ended';
  if (run.owner_token && (run.lease_until ?? 0) > now) return 'owned';
  const tables = (
    db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'runs' AND name NOT LIKE 'sqlite_%'`)
      .all() as { name: string }[]
  )
    .map((t) => t.name)
    .filter(
      (name) =>
        (db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = 'run_id'`).get(name) as unknown) !== undefined,
    );
  // The audit trail is append-only by trigger; deleting a whole run is the one exception, so
  // the trigger steps aside inside this transaction and is put back as it was before commit.
  const guards = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%BEFORE DELETE%'`)
    .all() as { name: string; sql: string }[];
  for (const g of guards) db.exec(`DROP TRIGGER "${g.name.replaceAll('"', '""')}"`);
  for (const name of tables) db.prepare(`DELETE FROM "${name.replaceAll('"', '""')}" WHERE run_id = ?`).run(runId);
  db.prepare('DELETE FROM runs WHERE id = ?').run(runId);
  for (const g of guards) db.exec(g.sql);
  return 'deleted';
}
