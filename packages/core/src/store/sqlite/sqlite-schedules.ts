import type Database from 'better-sqlite3';
import type { Run } from '../../types.js';
import type { NewQueuedRun } from '../queue-store.js';
import type { Row } from '../rows.js';
import {
  ACTIVE_STATUSES,
  firedEventData,
  slotRun,
  toSchedule,
  toSlot,
  type DecidedSlots,
  type NewSchedule,
  type ScheduleRecord,
  type ScheduleStore,
  type SlotDecision,
  type SlotOutcome,
  type SlotRecord,
} from '../schedule-store.js';
import { q } from './sqlite-prepared.js';

/** What schedules need of the SQLite store: its transactions, clock, and the queue's insert. */
export interface ScheduleHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  insertQueued(input: NewQueuedRun, extra: Record<string, unknown>): Run;
}

const SQL = {
  add: `INSERT INTO schedules (name, workflow, cron, tz, prompt, queue_key, priority, overlap, catch_up, created_at, created_by)
    VALUES (@name, @workflow, @cron, @tz, @prompt, @queueKey, @priority, @overlap, @catchUp, @t, @createdBy)
    ON CONFLICT (name) DO NOTHING`,
  get: 'SELECT * FROM schedules WHERE name = ?',
  list: 'SELECT * FROM schedules ORDER BY name',
  pause: 'UPDATE schedules SET paused_at = COALESCE(paused_at, ?) WHERE name = ?',
  // Resumed: the slots that passed while paused are not due (neither fired nor caught up).
  resume: `UPDATE schedules SET paused_at = NULL, last_slot = MAX(COALESCE(last_slot, 0), @t)
    WHERE name = @name AND paused_at IS NOT NULL`,
  remove: 'DELETE FROM schedules WHERE name = ?',
  // Compare and set: a worker that read another last_slot (another decided meanwhile) writes nothing.
  advance: `UPDATE schedules SET last_slot = @through
    WHERE name = @name AND paused_at IS NULL AND last_slot IS @after`,
  slot: `INSERT INTO schedule_slots (schedule, slot_at, outcome, run_id, decided_at, decided_by)
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (schedule, slot_at) DO NOTHING`,
  // This schedule's previous run (fired by a slot or by shop schedule run) not ended yet.
  active: `SELECT 1 FROM runs WHERE status IN ${ACTIVE_STATUSES}
    AND json_extract(trigger_json, '$.kind') = 'schedule' AND json_extract(trigger_json, '$.name') = ? LIMIT 1`,
  slots: 'SELECT * FROM schedule_slots WHERE schedule = ? ORDER BY slot_at DESC LIMIT ?',
} as const;

/** The SQLite adapter's schedules: one writer, so each decision is one immediate transaction. */
export class SqliteSchedules implements ScheduleStore {
  constructor(private readonly host: ScheduleHost) {}

  async addSchedule(input: NewSchedule): Promise<ScheduleRecord | null> {
    const { db } = this.host;
    return this.host.tx(() => {
      if (!q(db, SQL.add).run({ ...input, t: this.host.now() }).changes) return null;
      return toSchedule(q(db, SQL.get).get(input.name) as Row);
    });
  }

  async listSchedules(): Promise<ScheduleRecord[]> {
    return (q(this.host.db, SQL.list).all() as Row[]).map(toSchedule);
  }

  async getSchedule(name: string): Promise<ScheduleRecord | null> {
    const row = q(this.host.db, SQL.get).get(name) as Row | undefined;
    return row ? toSchedule(row) : null;
  }

  async setSchedulePaused(name: string, paused: boolean): Promise<ScheduleRecord | null> {
    const { db } = this.host;
    return this.host.tx(() => {
      const t = this.host.now();
      if (paused) q(db, SQL.pause).run(t, name);
      else q(db, SQL.resume).run({ t, name });
      const row = q(db, SQL.get).get(name) as Row | undefined;
      return row ? toSchedule(row) : null;
    });
  }

  async removeSchedule(name: string): Promise<boolean> {
    return this.host.tx(() => q(this.host.db, SQL.remove).run(name).changes > 0);
  }

  async decideSlots(d: SlotDecision): Promise<DecidedSlots | null> {
    const { db } = this.host;
    return this.host.tx(() => {
      const t = this.host.now();
      if (!q(db, SQL.advance).run({ name: d.schedule, through: d.through, after: d.after }).changes) return null;
      const decided: DecidedSlots = { fired: [], skipped: [] };
      const record = (slotAt: number, outcome: SlotOutcome, runId: number | null) =>
        q(db, SQL.slot).run(d.schedule, slotAt, outcome, runId, t, d.by).changes > 0;
      for (const slotAt of d.missed)
        if (record(slotAt, 'skipped_missed', null)) decided.skipped.push({ slotAt, outcome: 'skipped_missed' });
      for (const slotAt of d.fire) {
        if (d.overlap === 'skip' && q(db, SQL.active).get(d.schedule)) {
          if (record(slotAt, 'skipped_overlap', null)) decided.skipped.push({ slotAt, outcome: 'skipped_overlap' });
          continue;
        }
        // The slot's row first: a slot decided already (it cannot be, past the compare and set) queues nothing.
        if (!record(slotAt, 'fired', null)) continue;
        const run = this.host.insertQueued(slotRun(d, slotAt), firedEventData(d, slotAt));
        q(db, 'UPDATE schedule_slots SET run_id = ? WHERE schedule = ? AND slot_at = ?').run(
          run.id,
          d.schedule,
          slotAt,
        );
        decided.fired.push({ slotAt, run });
      }
      return decided;
    });
  }

  async listSlots(name: string, limit: number): Promise<SlotRecord[]> {
    return (q(this.host.db, SQL.slots).all(name, limit) as Row[]).map(toSlot);
  }
}
