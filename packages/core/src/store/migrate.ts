import type Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConflictError } from '../errors.js';

export const SCHEMA_VERSION = 4;
const schemaFile = fileURLToPath(new URL('../../../../schema.sql', import.meta.url));

/**
 * Version 1 → 2: owner tokens, stop requests, the delivery order and the workflow hash.
 * A version-1 run drove one call at a time, so its completed calls were handed to Lua in
 * call order: that order becomes their delivery order.
 */
const V2 = `
ALTER TABLE runs ADD COLUMN workflow_hash TEXT;
ALTER TABLE runs ADD COLUMN owner_token TEXT;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN owner_pid_start TEXT;
ALTER TABLE runs ADD COLUMN stop_reason TEXT;
ALTER TABLE runs ADD COLUMN stop_by TEXT;
ALTER TABLE runs ADD COLUMN stop_at INTEGER;
ALTER TABLE executions ADD COLUMN delivered INTEGER;
ALTER TABLE executions ADD COLUMN pid_start TEXT;
UPDATE executions SET delivered = (
  SELECT COUNT(*) FROM executions e2
  WHERE e2.run_id = executions.run_id AND e2.status = 'completed' AND e2.seq <= executions.seq
) WHERE status = 'completed';
UPDATE runs SET owner_pid = NULL, lease_until = NULL;
`;

/** Version 3 → 4: an agent's live progress on its execution. */
const V4 = `
ALTER TABLE executions ADD COLUMN attempt_at INTEGER;
ALTER TABLE executions ADD COLUMN activity TEXT;
ALTER TABLE executions ADD COLUMN activity_at INTEGER;
`;

/** Brings a store to SCHEMA_VERSION in one transaction; refuses one written by a newer Shop. */
export function migrate(db: Database.Database): void {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > SCHEMA_VERSION) {
    throw new ConflictError(`the store was written by a newer Shop (schema ${version} > ${SCHEMA_VERSION}); upgrade Shop`);
  }
  if (version === SCHEMA_VERSION) return;
  db.transaction(() => {
    if (version === 1) db.exec(V2);
    if (version >= 1 && version <= 3) db.exec(V4);
    // New tables and indexes (all IF NOT EXISTS): a new store gets everything here, and
    // schema 3's timers come to a store of schema 2 the same way.
    db.exec(readFileSync(schemaFile, 'utf8'));
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
