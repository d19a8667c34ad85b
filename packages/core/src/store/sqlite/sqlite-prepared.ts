import type Database from 'better-sqlite3';

/** An immediate transaction of the SQLite adapter's (its caller's `tx`). */
export type Tx = <T>(fn: () => T) => T;

/** Each connection's statements, prepared once (a worker's every pass, a signed-in person's every request). */
const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** The statement for `sql` on this connection, prepared on first use. */
export function q(db: Database.Database, sql: string): Database.Statement {
  let mine = prepared.get(db);
  if (!mine) prepared.set(db, (mine = new Map()));
  let stmt = mine.get(sql);
  if (!stmt) mine.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
