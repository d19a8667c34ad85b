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
import type { PgDb } from './pg-db.js';
import type { PgQueue } from './pg-queue.js';
import type { PgSentEvents } from './pg-sent-events.js';

/** What hooks need of the PostgreSQL store they are part of: its pool, clock, and the queue's and sent events' inserts. */
export interface PgHooksHost {
  db: PgDb;
  now(): number;
  queue: PgQueue;
  sentEvents: PgSentEvents;
}

const SQL = {
  insert: `INSERT INTO hooks (name, workflow, event_name, key_from, prompt_from, filter, github, secret_env, secret,
      created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    ON CONFLICT (name) DO NOTHING RETURNING *`,
  get: 'SELECT * FROM hooks WHERE name = $1',
  // Shared: the hook cannot be removed between this look and the delivery's insert.
  lock: 'SELECT 1 FROM hooks WHERE name = $1 FOR SHARE',
  list: 'SELECT * FROM hooks ORDER BY name',
  remove: 'DELETE FROM hooks WHERE name = $1 RETURNING name',
  // A racing delivery with the same id waits for the first to commit, then inserts nothing: the key is the guard.
  delivery: `INSERT INTO hook_deliveries (hook, delivery, received_at, outcome) VALUES ($1, $2, $3, $4)
    ON CONFLICT (hook, delivery) DO NOTHING RETURNING hook`,
  first: 'SELECT * FROM hook_deliveries WHERE hook = $1 AND delivery = $2',
  runOf: 'UPDATE hook_deliveries SET run_id = $3 WHERE hook = $1 AND delivery = $2',
} as const;

/** The PostgreSQL adapter's hooks: each write one transaction; a delivery's row and its run or event commit together. */
export class PgHooks implements HookStore {
  constructor(private readonly host: PgHooksHost) {}

  async addHook(h: NewHook): Promise<Hook> {
    const [row] = await this.host.db.query<Row>(SQL.insert, [
      h.name,
      h.workflow,
      h.eventName,
      h.keyFrom,
      h.promptFrom,
      h.filter,
      h.github ? 1 : 0,
      h.secretEnv,
      h.secret,
      Math.round(this.host.now()),
      h.createdBy,
    ]);
    if (!row) throw hookExists(h.name);
    return toHook(row);
  }

  async getHook(name: string): Promise<Hook | null> {
    const [row] = await this.host.db.query<Row>(SQL.get, [name]);
    return row ? toHook(row) : null;
  }

  async listHooks(): Promise<Hook[]> {
    return (await this.host.db.query<Row>(SQL.list)).map(toHook);
  }

  async removeHook(name: string): Promise<boolean> {
    return (await this.host.db.query(SQL.remove, [name])).length > 0;
  }

  async recordDelivery({ hook, delivery, action }: NewDelivery): Promise<RecordedDelivery> {
    return this.host.db.tx(async (q): Promise<RecordedDelivery> => {
      if (!(await q.query(SQL.lock, [hook])).length) throw new NotFoundError(hookGone(hook));
      const t = Math.round(this.host.now());
      if (!(await q.query(SQL.delivery, [hook, delivery, t, action.kind])).length)
        return duplicateOf((await q.query<Row>(SQL.first, [hook, delivery]))[0]!);
      if (action.kind === 'filtered') return { duplicate: false, outcome: 'filtered' };
      if (action.kind === 'event')
        return { duplicate: false, outcome: 'event', sent: await this.host.sentEvents.sending(q, action.event) };
      const run = await this.host.queue.insertQueued(q, action.run);
      // A hook's run has no startId: nothing races it to the insert.
      if (!run) throw new Error('a hook delivery queued no run');
      await q.query(SQL.runOf, [hook, delivery, run.id]);
      return { duplicate: false, outcome: 'run', run };
    });
  }
}
