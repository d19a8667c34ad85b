import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors.js';
import {
  duplicateOf,
  hookExists,
  hookGone,
  toHook,
  type Hook,
  type HookStore,
  type NewDelivery,
  type NewHook,
  type RecordedDelivery,
} from '../hook-store.js';
import type { Row } from '../rows.js';
import type { SqliteQueue } from './sqlite-queue.js';
import type { SqliteSentEvents } from './sqlite-sent-events.js';
import { q } from './sqlite-prepared.js';

/** What hooks need of the SQLite store they are part of: its transactions, clock, and the queue's and sent events' inserts. */
export interface HooksHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  queue: SqliteQueue;
  sentEvents: SqliteSentEvents;
}

const SQL = {
  insert: `INSERT INTO hooks (name, workflow, event_name, key_from, prompt_from, filter, github, secret_env, secret,
      created_at, created_by)
    VALUES (@name, @workflow, @eventName, @keyFrom, @promptFrom, @filter, @github, @secretEnv, @secret, @t, @createdBy)
    ON CONFLICT (name) DO NOTHING`,
  get: 'SELECT * FROM hooks WHERE name = ?',
  list: 'SELECT * FROM hooks ORDER BY name',
  remove: 'DELETE FROM hooks WHERE name = ?',
  // A delivery seen before inserts nothing: the key is the guard.
  delivery: `INSERT INTO hook_deliveries (hook, delivery, received_at, outcome) VALUES (?, ?, ?, ?)
    ON CONFLICT (hook, delivery) DO NOTHING`,
  first: 'SELECT * FROM hook_deliveries WHERE hook = ? AND delivery = ?',
  runOf: 'UPDATE hook_deliveries SET run_id = ? WHERE hook = ? AND delivery = ?',
} as const;

/** The SQLite adapter's hooks: every write one immediate transaction of the store. */
export class SqliteHooks implements HookStore {
  constructor(private readonly host: HooksHost) {}

  async addHook(hook: NewHook): Promise<Hook> {
    const { db } = this.host;
    return this.host.tx(() => {
      const t = this.host.now();
      if (!q(db, SQL.insert).run({ ...hook, github: hook.github ? 1 : 0, t }).changes) throw hookExists(hook.name);
      return toHook(q(db, SQL.get).get(hook.name) as Row);
    });
  }

  async getHook(name: string): Promise<Hook | null> {
    const row = q(this.host.db, SQL.get).get(name) as Row | undefined;
    return row ? toHook(row) : null;
  }

  async listHooks(): Promise<Hook[]> {
    return (q(this.host.db, SQL.list).all() as Row[]).map(toHook);
  }

  async removeHook(name: string): Promise<boolean> {
    return this.host.tx(() => q(this.host.db, SQL.remove).run(name).changes > 0);
  }

  async recordDelivery({ hook, delivery, action }: NewDelivery): Promise<RecordedDelivery> {
    const { db } = this.host;
    return this.host.tx((): RecordedDelivery => {
      if (!q(db, SQL.get).get(hook)) throw new NotFoundError(hookGone(hook));
      if (!q(db, SQL.delivery).run(hook, delivery, this.host.now(), action.kind).changes)
        return duplicateOf(q(db, SQL.first).get(hook, delivery) as Row);
      if (action.kind === 'filtered') return { duplicate: false, outcome: 'filtered' };
      if (action.kind === 'event')
        return { duplicate: false, outcome: 'event', sent: this.host.sentEvents.sending(action.event) };
      const run = this.host.queue.insertQueued(action.run);
      q(db, SQL.runOf).run(run.id, hook, delivery);
      return { duplicate: false, outcome: 'run', run };
    });
  }
}
