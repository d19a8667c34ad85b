import { toRun, type Row } from '../rows.js';
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
import type { PgDb } from './pg-db.js';
import { insertQueued } from './pg-queue.js';

const SQL = {
  // $1 name … $9 catch_up, $10 t, $11 created_by
  add: `INSERT INTO schedules (name, workflow, cron, tz, prompt, queue_key, priority, overlap, catch_up, created_at, created_by)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (name) DO NOTHING RETURNING *`,
  get: 'SELECT * FROM schedules WHERE name = $1',
  list: 'SELECT * FROM schedules ORDER BY name',
  pause: 'UPDATE schedules SET paused_at = COALESCE(paused_at, $2) WHERE name = $1 RETURNING *',
  // Resumed: the slots that passed while paused are not due (neither fired nor caught up).
  resume: `UPDATE schedules SET paused_at = NULL, last_slot = GREATEST(COALESCE(last_slot, 0), $2)
    WHERE name = $1 AND paused_at IS NOT NULL RETURNING *`,
  remove: 'DELETE FROM schedules WHERE name = $1 RETURNING name',
  // Compare and set: a racing worker waits on the row's lock, then finds last_slot moved and writes nothing.
  advance: `UPDATE schedules SET last_slot = $2
    WHERE name = $1 AND paused_at IS NULL AND last_slot IS NOT DISTINCT FROM $3 RETURNING name`,
  slot: `INSERT INTO schedule_slots (schedule, slot_at, outcome, run_id, decided_at, decided_by)
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (schedule, slot_at) DO NOTHING RETURNING slot_at`,
  active: `SELECT 1 FROM runs WHERE status IN ${ACTIVE_STATUSES}
    AND trigger_json::jsonb ->> 'kind' = 'schedule' AND trigger_json::jsonb ->> 'name' = $1 LIMIT 1`,
  slots: 'SELECT * FROM schedule_slots WHERE schedule = $1 ORDER BY slot_at DESC LIMIT $2',
} as const;

/** The PostgreSQL adapter's schedules: a decision is one transaction, fenced by the schedule row's compare and set. */
export class PgSchedules implements ScheduleStore {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => number,
  ) {}

  async addSchedule(s: NewSchedule): Promise<ScheduleRecord | null> {
    const [row] = await this.db.query(SQL.add, [
      s.name,
      s.workflow,
      s.cron,
      s.tz,
      s.prompt,
      s.queueKey,
      s.priority,
      s.overlap,
      s.catchUp,
      Math.round(this.now()),
      s.createdBy,
    ]);
    return row ? toSchedule(row) : null;
  }

  async listSchedules(): Promise<ScheduleRecord[]> {
    return (await this.db.query(SQL.list)).map(toSchedule);
  }

  async getSchedule(name: string): Promise<ScheduleRecord | null> {
    const [row] = await this.db.query(SQL.get, [name]);
    return row ? toSchedule(row) : null;
  }

  async setSchedulePaused(name: string, paused: boolean): Promise<ScheduleRecord | null> {
    const t = Math.round(this.now());
    const [row] = await this.db.query(paused ? SQL.pause : SQL.resume, [name, t]);
    return row ? toSchedule(row) : this.getSchedule(name);
  }

  async removeSchedule(name: string): Promise<boolean> {
    return (await this.db.query(SQL.remove, [name])).length > 0;
  }

  async decideSlots(d: SlotDecision): Promise<DecidedSlots | null> {
    return this.db.tx(async (q) => {
      const t = Math.round(this.now());
      if (!(await q.query(SQL.advance, [d.schedule, d.through, d.after])).length) return null;
      const decided: DecidedSlots = { fired: [], skipped: [] };
      const record = async (slotAt: number, outcome: SlotOutcome, runId: number | null) =>
        (await q.query(SQL.slot, [d.schedule, slotAt, outcome, runId, t, d.by])).length > 0;
      for (const slotAt of d.missed)
        if (await record(slotAt, 'skipped_missed', null)) decided.skipped.push({ slotAt, outcome: 'skipped_missed' });
      for (const slotAt of d.fire) {
        if (d.overlap === 'skip' && (await q.query(SQL.active, [d.schedule])).length) {
          if (await record(slotAt, 'skipped_overlap', null))
            decided.skipped.push({ slotAt, outcome: 'skipped_overlap' });
          continue;
        }
        if (!(await record(slotAt, 'fired', null))) continue;
        const row: Row | null = await insertQueued(q, slotRun(d, slotAt), t, firedEventData(d, slotAt));
        // A fired slot's run has no start id: its insert always makes a row.
        const run = toRun(row!);
        await q.query('UPDATE schedule_slots SET run_id = $3 WHERE schedule = $1 AND slot_at = $2', [
          d.schedule,
          slotAt,
          run.id,
        ]);
        decided.fired.push({ slotAt, run });
      }
      return decided;
    });
  }

  async listSlots(name: string, limit: number): Promise<SlotRecord[]> {
    return (await this.db.query(SQL.slots, [name, limit])).map(toSlot);
  }
}
