import type { EnginePorts } from '../engine/ports.js';
import { NotFoundError, UsageError } from '../errors.js';
import type { Project } from '../project/project.js';
import { nextSlots } from '../schedules/next-slots.js';
import { parseSchedule } from '../schedules/parse-schedule.js';
import { DEFAULT_CATCH_UP, DEFAULT_OVERLAP, parseCatchUp, parseOverlap } from '../schedules/schedule-options.js';
import { hostTimeZone, zonedIso } from '../schedules/zone.js';
import type { ScheduleRecord, SlotRecord } from '../store/schedule-store.js';
import { inert, quoted } from '../text.js';
import { checkPriority, checkQueueKey } from './queue-checks.js';
import { queuedRunInput, queueRun, type QueuedRun } from './queue-run.js';

/** shop schedule add: what a person gave, checked here (the CLI passes the words as typed). */
export interface ScheduleRequest {
  name: string;
  workflow: string;
  cron: string;
  /** An IANA zone; this machine's when not given. */
  tz?: string;
  prompt?: string;
  key?: string | null;
  priority?: number;
  overlap?: string;
  catchUp?: string;
  by: string;
}

/** A schedule as shop schedule list --json shows it (times on its zone's clock, with the offset). */
export interface ScheduleJson {
  name: string;
  workflow: string;
  cron: string;
  tz: string;
  prompt: string;
  key: string | null;
  priority: number;
  overlap: string;
  catch_up: string;
  paused: boolean;
  paused_at: string | null;
  created_at: string;
  created_by: string;
  /** The next fire times (none while paused). */
  next: string[];
  last_slot: { at: string; outcome: string; run_id: number | null } | null;
}

/** A decided slot (shop schedule slots --json): fired with its run, or skipped and why. */
export interface SlotJson {
  schedule: string;
  slot: string;
  outcome: string;
  run_id: number | null;
  decided_at: string;
  decided_by: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** The longest prompt a schedule keeps: a schedule's prompt names the work, a long brief goes in a file. */
export const SCHEDULE_PROMPT_MAX = 64 * 1024;
/** How many next fire times a listing shows. */
const NEXT_SHOWN = 3;

export function checkScheduleName(name: string): string {
  if (!NAME.test(name))
    throw new UsageError(
      `a schedule's name is 1 to 64 of a-z 0-9 - _ (starting with a letter or digit), not ${quoted(inert(name, false), 70)}`,
    );
  return name;
}

/**
 * Adds a schedule, every part checked before anything is written (the cron and zone, the
 * policies, the key and priority, the workflow looked up and its Lua checked): bad input is
 * one UsageError (an unknown workflow NotFoundError, as shop run), nothing half-made.
 */
export async function addSchedule(ports: EnginePorts, project: Project, req: ScheduleRequest): Promise<ScheduleJson> {
  const name = checkScheduleName(req.name);
  const schedule = parseSchedule({ cron: req.cron, tz: req.tz ?? hostTimeZone() });
  const overlap = req.overlap === undefined ? DEFAULT_OVERLAP : parseOverlap(req.overlap);
  const catchUp = req.catchUp === undefined ? DEFAULT_CATCH_UP : parseCatchUp(req.catchUp);
  const priority = checkPriority(req.priority ?? 0);
  const queueKey = checkQueueKey(req.key ?? null);
  const prompt = req.prompt ?? '';
  if (prompt.length > SCHEDULE_PROMPT_MAX)
    throw new UsageError(
      `--prompt is ${prompt.length} characters, over ${SCHEDULE_PROMPT_MAX}; name a file in it instead`,
    );
  if (/\0/.test(prompt)) throw new UsageError('--prompt holds a NUL character; give text');
  queuedRunInput(ports, project, {
    workflow: req.workflow,
    prompt,
    trigger: scheduleTrigger(name, req.by, null),
    actor: req.by,
  });
  const added = await ports.store.addSchedule({
    name,
    workflow: req.workflow,
    cron: schedule.cron,
    tz: schedule.tz,
    prompt,
    queueKey,
    priority,
    overlap,
    catchUp,
    createdBy: req.by,
  });
  if (!added)
    throw new UsageError(
      `a schedule named ${name} exists already: remove it first (shop schedule remove ${name}) or pick another name`,
    );
  return scheduleJson(ports, added, null);
}

export async function listSchedules(ports: EnginePorts): Promise<ScheduleJson[]> {
  const { store } = ports;
  const all = await store.listSchedules();
  return Promise.all(all.map(async (s) => scheduleJson(ports, s, (await store.listSlots(s.name, 1))[0] ?? null)));
}

/** A schedule's decided slots, newest first. */
export async function listScheduleSlots(ports: EnginePorts, name: string, limit: number): Promise<SlotJson[]> {
  const s = await mustSchedule(ports, name);
  return (await ports.store.listSlots(s.name, limit)).map((slot) => slotJson(s, slot));
}

export async function pauseSchedule(ports: EnginePorts, name: string, paused: boolean): Promise<ScheduleJson> {
  const s = await ports.store.setSchedulePaused(checkScheduleName(name), paused);
  if (!s) throw unknownSchedule(name);
  return scheduleJson(ports, s, (await ports.store.listSlots(s.name, 1))[0] ?? null);
}

export async function removeSchedule(ports: EnginePorts, name: string): Promise<void> {
  if (!(await ports.store.removeSchedule(checkScheduleName(name)))) throw unknownSchedule(name);
}

/** shop schedule run: one run of it now (trigger schedule, no slot: its slots are not touched). */
export async function runSchedule(ports: EnginePorts, project: Project, name: string, by: string): Promise<QueuedRun> {
  const s = await mustSchedule(ports, name);
  return queueRun(ports, project, {
    workflow: s.workflow,
    prompt: s.prompt,
    priority: s.priority,
    key: s.queueKey,
    trigger: scheduleTrigger(s.name, by, { slot: null }),
    actor: by,
  });
}

export const scheduleTrigger = (name: string, by: string, data: unknown) =>
  ({ kind: 'schedule', name, by, data }) as const;

async function mustSchedule(ports: EnginePorts, name: string): Promise<ScheduleRecord> {
  const s = await ports.store.getSchedule(checkScheduleName(name));
  if (!s) throw unknownSchedule(name);
  return s;
}

const unknownSchedule = (name: string) => new NotFoundError(`no schedule named ${name}; shop schedule list shows them`);

const iso = (ms: number) => new Date(ms).toISOString();

function scheduleJson(ports: EnginePorts, s: ScheduleRecord, last: SlotRecord | null): ScheduleJson {
  const schedule = parseSchedule(s);
  // From the store's clock, or from the last decided slot if the clock is behind it.
  const from = Math.max(ports.store.now(), s.lastSlot ?? -Infinity);
  return {
    name: s.name,
    workflow: s.workflow,
    cron: s.cron,
    tz: s.tz,
    prompt: s.prompt,
    key: s.queueKey,
    priority: s.priority,
    overlap: s.overlap,
    catch_up: s.catchUp,
    paused: s.pausedAt !== null,
    paused_at: s.pausedAt === null ? null : iso(s.pausedAt),
    created_at: iso(s.createdAt),
    created_by: s.createdBy,
    next: s.pausedAt !== null ? [] : nextSlots(schedule, from, NEXT_SHOWN).map((t) => zonedIso(t, s.tz)),
    last_slot: last && { at: zonedIso(last.slotAt, s.tz), outcome: last.outcome, run_id: last.runId },
  };
}

function slotJson(s: ScheduleRecord, slot: SlotRecord): SlotJson {
  return {
    schedule: slot.schedule,
    slot: zonedIso(slot.slotAt, s.tz),
    outcome: slot.outcome,
    run_id: slot.runId,
    decided_at: iso(slot.decidedAt),
    decided_by: slot.decidedBy,
  };
}
