import type { CatchUp, Overlap } from '../schedules/schedule-options.js';
import type { Run } from '../types.js';
import type { NewQueuedRun } from './queue-store.js';
import type { Row } from './rows.js';

/** A schedule as the store keeps it (shop schedule add): its slots fire queued runs of `workflow`. */
export interface ScheduleRecord {
  name: string;
  workflow: string;
  cron: string;
  tz: string;
  prompt: string;
  queueKey: string | null;
  priority: number;
  overlap: Overlap;
  catchUp: CatchUp;
  /** When it was paused (the store's clock); null while it fires. */
  pausedAt: number | null;
  createdAt: number;
  createdBy: string;
  /** The latest slot decided (fired or skipped), or the instant it was resumed: no slot at or before it is due. */
  lastSlot: number | null;
}

export type NewSchedule = Omit<ScheduleRecord, 'pausedAt' | 'createdAt' | 'lastSlot'>;

export type SlotOutcome = 'fired' | 'skipped_overlap' | 'skipped_missed';

/** One decided slot: the audit trail of a schedule (its primary key makes a slot fire once, everywhere). */
export interface SlotRecord {
  schedule: string;
  slotAt: number;
  outcome: SlotOutcome;
  runId: number | null;
  decidedAt: number;
  decidedBy: string;
}

/** What one worker decided about a schedule's due slots (dueSlots' answer), to be written in one transaction. */
export interface SlotDecision {
  schedule: string;
  /** The last_slot the decision was made from: when another worker moved it meanwhile, nothing is written. */
  after: number | null;
  /** Slots to fire, oldest first: each queues a run unless overlap `skip` finds this schedule's previous run active. */
  fire: readonly number[];
  /** Missed slots that do not fire (catch-up), recorded `skipped_missed`. */
  missed: readonly number[];
  /** The latest slot decided: the schedule's new last_slot. */
  through: number;
  overlap: Overlap;
  /** The run each fired slot queues; its trigger's data gets the slot (`slotData`). */
  run: NewQueuedRun;
  /** The slot's data in the run's trigger (context().trigger.data). */
  slotData(slotAt: number): Record<string, unknown>;
  /** Extra for the fired run's first event (how many slots were missed before it). */
  eventData: Record<string, unknown>;
  /** The worker deciding ("host pid 812"). */
  by: string;
}

/** What was written: nothing (null) when another worker decided these slots first. */
export interface DecidedSlots {
  fired: { slotAt: number; run: Run }[];
  skipped: { slotAt: number; outcome: SlotOutcome }[];
}

/**
 * Schedules, part of the store port. Deciding a schedule's due slots is one transaction: the
 * schedule's last_slot moves from what the decider read (compare and set) and each slot's row
 * is inserted (its key is the schedule and the instant), so racing workers on any number of
 * machines fire a slot once — the loser writes nothing.
 */
export interface ScheduleStore {
  /** Null when a schedule of that name exists. */
  addSchedule(input: NewSchedule): Promise<ScheduleRecord | null>;
  /** Every schedule, by name. */
  listSchedules(): Promise<ScheduleRecord[]>;
  getSchedule(name: string): Promise<ScheduleRecord | null>;
  /**
   * Pauses (paused true) or resumes it. Resuming moves last_slot to now: the slots that passed
   * while paused are neither fired nor caught up. Null when there is no such schedule.
   */
  setSchedulePaused(name: string, paused: boolean): Promise<ScheduleRecord | null>;
  /** Removes it and its slot rows (its runs stay); false when there was none. */
  removeSchedule(name: string): Promise<boolean>;
  decideSlots(decision: SlotDecision): Promise<DecidedSlots | null>;
  /** A schedule's decided slots, newest first, at most `limit`. */
  listSlots(name: string, limit: number): Promise<SlotRecord[]>;
}

/** The run statuses a schedule's previous run counts as active in (overlap `skip`). */
export const ACTIVE_STATUSES = `('queued','running','waiting','waiting_human')`;

/** The trail's data of a fired slot's run: what queued it, and what was missed before. */
export function firedEventData(d: SlotDecision, slotAt: number): Record<string, unknown> {
  return { schedule: d.schedule, slot: new Date(slotAt).toISOString(), ...d.eventData };
}

/** A fired slot's run: the template with its trigger's data (the slot) and, for overlap `queue`, one at a time. */
export function slotRun(d: SlotDecision, slotAt: number): NewQueuedRun {
  return {
    ...d.run,
    // queue: waits behind any run of its workflow (and key) being driven; allow: the workflow's own concurrency.
    concurrency: d.overlap === 'queue' ? 1 : d.run.concurrency,
    trigger: { ...d.run.trigger, data: d.slotData(slotAt) },
  };
}

const num = (v: unknown) => (v == null ? null : Number(v));

export function toSchedule(r: Row): ScheduleRecord {
  return {
    name: String(r.name),
    workflow: String(r.workflow),
    cron: String(r.cron),
    tz: String(r.tz),
    prompt: String(r.prompt),
    queueKey: r.queue_key == null ? null : String(r.queue_key),
    priority: Number(r.priority),
    overlap: r.overlap as Overlap,
    catchUp: r.catch_up as CatchUp,
    pausedAt: num(r.paused_at),
    createdAt: Number(r.created_at),
    createdBy: String(r.created_by),
    lastSlot: num(r.last_slot),
  };
}

export function toSlot(r: Row): SlotRecord {
  return {
    schedule: String(r.schedule),
    slotAt: Number(r.slot_at),
    outcome: r.outcome as SlotOutcome,
    runId: num(r.run_id),
    decidedAt: Number(r.decided_at),
    decidedBy: String(r.decided_by),
  };
}
