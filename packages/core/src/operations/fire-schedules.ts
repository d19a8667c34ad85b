import type { EnginePorts } from '../engine/ports.js';
import type { Project } from '../project/project.js';
import { dueSlots } from '../schedules/due-slots.js';
import { parseSchedule } from '../schedules/parse-schedule.js';
import { zonedIso } from '../schedules/zone.js';
import { wakeForQueued } from '../signals/wake.js';
import type { ScheduleRecord } from '../store/schedule-store.js';
import { capText } from '../text.js';
import type { Run } from '../types.js';
import { queuedRunInput } from './queue-run.js';
import { scheduleTrigger } from './schedule-ops.js';

/** What a worker's pass did with the schedules, a line each for its operator. */
export type ScheduleEvent =
  | { type: 'schedule_fired'; schedule: string; slot: string; run: Run }
  /** Slots not fired, one line per reason: missed (catch-up; a long downtime's are counted, `atLeast` past the cap) or overlapping. */
  | {
      type: 'schedule_skipped';
      schedule: string;
      outcome: 'skipped_overlap' | 'skipped_missed';
      count: number;
      atLeast: boolean;
      first: string;
      last: string;
    }
  /** Its workflow could not be queued (deleted, broken): its slots stay undecided until it can. */
  | { type: 'schedule_failed'; schedule: string; message: string };

export interface FiredSchedules {
  /** The earliest next slot of the unpaused schedules (the store's clock), or null: when to look again. */
  next: number | null;
  events: ScheduleEvent[];
}

/**
 * One look at every unpaused schedule, by the store's clock: each one's due slots decided
 * (dueSlots: its catch-up policy) and written in one transaction each — fired slots queue
 * their runs, skipped ones are recorded. A worker racing this one on the same slots writes
 * nothing (the store's compare and set), so each slot fires once wherever workers run.
 */
export async function fireDueSchedules(ports: EnginePorts, project: Project, by: string): Promise<FiredSchedules> {
  const events: ScheduleEvent[] = [];
  let next: number | null = null;
  for (const s of await ports.store.listSchedules()) {
    if (s.pausedAt !== null) continue;
    try {
      const upcoming = await decide(ports, project, s, by, events);
      if (upcoming !== null && (next === null || upcoming < next)) next = upcoming;
    } catch (e) {
      events.push({
        type: 'schedule_failed',
        schedule: s.name,
        message: capText((e as Error)?.message ?? String(e), 600),
      });
    }
  }
  return { next, events };
}

async function decide(
  ports: EnginePorts,
  project: Project,
  s: ScheduleRecord,
  by: string,
  events: ScheduleEvent[],
): Promise<number | null> {
  const schedule = parseSchedule(s);
  const due = dueSlots(schedule, {
    lastSlotMs: s.lastSlot,
    createdAtMs: s.createdAt,
    nowMs: ports.store.now(),
    catchUp: s.catchUp,
  });
  if (due.through === null) return due.next;
  const at = (t: number) => zonedIso(t, s.tz);
  const run = queuedRunInput(ports, project, {
    workflow: s.workflow,
    prompt: s.prompt,
    priority: s.priority,
    key: s.queueKey,
    trigger: scheduleTrigger(s.name, s.createdBy, null),
    actor: `schedule:${s.name}`,
  });
  const missed = due.skippedCount
    ? { missed: due.skippedCount, missed_at_least: due.skippedAtLeast, first_missed: at(due.firstSkipped!) }
    : {};
  const decided = await ports.store.decideSlots({
    schedule: s.name,
    after: s.lastSlot,
    fire: due.fire,
    missed: due.skipped,
    through: due.through,
    overlap: s.overlap,
    run,
    slotData: (t) => ({ slot: at(t) }),
    eventData: missed,
    by,
  });
  // Another worker decided them first: it said so.
  if (!decided) return due.next;
  const overlapped = decided.skipped.filter((k) => k.outcome === 'skipped_overlap').map((k) => k.slotAt);
  if (due.skippedCount)
    events.push({
      type: 'schedule_skipped',
      schedule: s.name,
      outcome: 'skipped_missed',
      count: due.skippedCount,
      atLeast: due.skippedAtLeast,
      first: at(due.firstSkipped!),
      last: at(due.skipped.at(-1)!),
    });
  if (overlapped.length)
    events.push({
      type: 'schedule_skipped',
      schedule: s.name,
      outcome: 'skipped_overlap',
      count: overlapped.length,
      atLeast: false,
      first: at(overlapped[0]!),
      last: at(overlapped.at(-1)!),
    });
  for (const f of decided.fired) {
    // The other workers of this machine (SQLite has no pushed wakes) take it at once too.
    wakeForQueued(ports.paths.signalsDir, f.run.id);
    events.push({ type: 'schedule_fired', schedule: s.name, slot: at(f.slotAt), run: f.run });
  }
  return due.next;
}
