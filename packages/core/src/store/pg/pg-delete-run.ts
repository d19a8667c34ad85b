import type { DeleteRunOutcome } from '../store.js';
import type { Row } from '../rows.js';
import type { Sql } from './pg-db.js';

/**
 * Deletes an ended run and every row that names it, inside the caller's transaction. Checked
 * here, under the run row's lock: the run has ended and no live driver holds it (an owner
 * whose lease still runs by the store's clock `now` may be finishing up). Tables are found by
 * their run_id column, so a table added later is not left holding rows of a run that is gone.
 */
export async function deleteRunRows(q: Sql, runId: number, now: number): Promise<DeleteRunOutcome> {
  const [run] = await q.query<Row>(
    `SELECT status IN ('completed','stuck','failed') AS ended, owner_token, lease_until FROM runs WHERE id = $1 FOR UPDATE`,
    [runId],
  );
  if (!run) return 'missing';
  if (!run.ended) return 'not_ended';
  if (run.owner_token != null && Number(run.lease_until ?? 0) > now) return 'owned';
  const tables = await q.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.column_name = 'run_id' AND c.table_name <> 'runs' ORDER BY c.table_name`,
  );
  // The audit trail is append-only by trigger; deleting a whole run is the one exception,
  // allowed for this run only and only inside this transaction (schema.ts).
  await q.query(`SELECT set_config('shop.deleting_run', $1, true)`, [String(runId)]);
  for (const { table_name: name } of tables)
    await q.query(`DELETE FROM "${name.replaceAll('"', '""')}" WHERE run_id = $1`, [runId]);
  await q.query('DELETE FROM runs WHERE id = $1', [runId]);
  return 'deleted';
}
