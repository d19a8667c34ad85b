import { ExitCode, NotFoundError, UsageError, quoted, waitingOnWords } from '@shop/core';
import type { DriveOutcome, Notice, Run, WorkerEvent } from '@shop/core';
import { runIdOf } from '../args.js';
import type { Context } from '../context.js';
import { describeWaiting, firstLine, printingNotifier } from '../output.js';
import { actionWords } from '../error-line.js';
import { scheduleLine } from '../schedule-lines.js';
import { serveMetrics } from '../metrics-server.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop watch [<id>…] [--max-parallel N] [--metrics-port N] [--json]';

/**
 * shop watch: one process that keeps every run of the project moving — it takes interrupted
 * runs, holds waiting ones so answers given anywhere resume them here, fires timers — until
 * SIGTERM or Ctrl-C, which stop its agents (the runs stay resumable) and let every run go.
 */
export default async function watch(args: CommandArgs<'watch'>, ctx: Context): Promise<number> {
  const ids = [...new Set(args.positionals.map((raw) => runIdOf(raw, args.command, USAGE)))];
  const raw = args.values['max-parallel'];
  const maxParallel = raw === undefined ? Infinity : Number(raw);
  if (!(maxParallel >= 1 && (Number.isInteger(maxParallel) || maxParallel === Infinity)))
    throw new UsageError(`--max-parallel ${quoted(raw ?? '')} must be a whole number of agents, at least 1`);
  const json = args.values.json;
  const ops = await ctx.ops();
  for (const id of ids) if (!(await ops.run(id))) throw new NotFoundError(`no run ${id}; see runs with: shop list`);
  const emit = (event: Record<string, unknown>, line: string) =>
    ctx.out(json ? JSON.stringify({ at: new Date().toISOString(), ...event }) : line);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const scope = ids.length ? `runs ${ids.join(', ')}` : ctx.project.root;
  const worker = await ops.worker({
    maxParallel,
    maxDrivers: 32,
    only: ids.length ? ids : null,
    signal: stop.signal,
    report: (e) => report(e, emit),
    // Once registered and listening, so whoever waits for this line may hand it work at once.
    onReady: () =>
      emit(
        { type: 'watching', pid: process.pid, runs: ids.length ? ids : null, max_parallel: raw ? maxParallel : null },
        `shop watch: watching ${scope} (pid ${process.pid}${raw ? `, at most ${maxParallel} agents at once` : ''}); Ctrl-C or SIGTERM to stop`,
      ),
    notifierFor: (run) =>
      json ? jsonNotifier(run, emit) : printingNotifier((line) => ctx.out(`run ${run.id}${line.slice(1)}`)),
  });
  const metrics =
    args.values['metrics-port'] === undefined ? null : await serveMetrics(args.values['metrics-port'], ops);
  try {
    await worker.run();
  } finally {
    await metrics?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await ops.settle();
  }
  return ids.length && !stop.signal.aborted ? endedCode(await Promise.all(ids.map((id) => ops.run(id))), emit) : 0;
}

/** Every named run has ended: 0 when all completed, else the exit code of the first that did not (4 stuck, 1 failed). */
function endedCode(runs: (Run | null)[], emit: Emit): number {
  const ended = runs.filter((r): r is Run => r !== null);
  const other = ended.find((r) => r.status !== 'completed');
  const code = !other ? ExitCode.ok : other.status === 'stuck' ? ExitCode.stuck : ExitCode.failed;
  emit(
    { type: 'ended', runs: ended.map((r) => ({ run: r.id, status: r.status })), exit_code: code },
    `shop watch: every run watched has ended (${ended.map((r) => `${r.id} ${r.status}`).join(', ')})`,
  );
  return code;
}

type Emit = (event: Record<string, unknown>, line: string) => void;

function report(e: WorkerEvent, emit: Emit) {
  if (e.type === 'pass_failed') {
    const message = e.message + e.actions.map(actionWords).join('');
    return emit(
      { type: 'pass_failed', message, retry_in_ms: e.retryInMs },
      `shop watch: could not look at the runs: ${message}; trying again within ${Math.round(e.retryInMs / 1000)} s`,
    );
  }
  if (e.type === 'schedule') {
    const { event, line } = scheduleLine(e.event);
    return emit(event, line);
  }
  if (e.type === 'pass_recovered')
    return emit({ type: 'pass_recovered' }, 'shop watch: the store answers again; watching on');
  if (e.type === 'stopping') {
    return emit(
      { type: 'stopping', driving: e.active, holding: e.held },
      `shop watch: stopping: ${e.active} run(s) driven here left resumable, ${e.held} waiting run(s) let go`,
    );
  }
  const name = `run ${e.run.id} (${e.run.spec})`;
  const base = { run: e.run.id, spec: e.run.spec };
  switch (e.type) {
    case 'took':
      return emit(
        { ...base, type: 'took', how: e.how },
        e.how === 'interrupted'
          ? `${name}: taken over (its driver was gone); driving it on`
          : e.how === 'queued'
            ? `${name}: taken from the queue; starting it`
            : `${name}: held here while it waits for a person`,
      );
    case 'resuming':
      return emit({ ...base, type: 'resuming', why: e.why }, `${name}: resuming (${WHY[e.why]})`);
    case 'timers':
      return emit(
        { ...base, type: 'timers', ended: e.ended },
        `${name}: a timer fired${e.ended ? ': the run ended' : ''}`,
      );
    case 'error': {
      const message = e.message + e.actions.map(actionWords).join('');
      return emit(
        { ...base, type: 'error', message, retry_in_ms: e.retryInMs },
        `${name}: ${message}${e.retryInMs === null ? '' : `; trying again in ${Math.round(e.retryInMs / 1000)} s`}`,
      );
    }
    case 'gave_up':
      return emit(
        { ...base, type: 'gave_up', reason: e.reason },
        `${name} failed: ${e.reason} (see: shop status ${e.run.id})`,
      );
    case 'left':
      return emit({ ...base, type: 'left', reason: e.reason }, `${name}: left to other workers: ${e.reason}`);
    case 'outcome':
      return emit({ ...base, type: 'outcome', outcome: e.outcome }, outcomeLine(e.run, e.outcome));
  }
}

const WHY = {
  answer: 'an answer came in',
  stop: 'a stop was requested',
  interrupted: 'taken over',
  timer: 'its time came',
  event: 'an event came in',
  child: 'a run it waited on ended',
  queued: 'taken from the queue',
} as const;

function outcomeLine(run: Run, o: DriveOutcome): string {
  const name = `run ${run.id} (${run.spec})`;
  switch (o.status) {
    case 'completed':
      return `${name} completed${o.result != null ? `: ${firstLine(JSON.stringify(o.result))}` : ''}`;
    case 'waiting_human':
      return o.waiting.map((exec) => `${name}: ${describeWaiting(run.id, exec, true)}`).join('\n');
    case 'waiting':
      return `${name}: waits on ${waitingOnWords(o.waits)}; held here until then`;
    case 'stuck':
      return `${name} is stuck: ${o.reason}`;
    case 'failed':
      return `${name} failed: ${o.reason}`;
    case 'interrupted':
      return `${name}: its agents were stopped; it stays resumable`;
    case 'lost':
      return `${name}: another driver took it over`;
    case 'replayed':
      return `${name}: replayed`;
  }
}

function jsonNotifier(run: Run, emit: Emit) {
  return {
    notify: (n: Notice) =>
      emit(
        {
          type: 'progress',
          run: run.id,
          notice: n.type === 'waiting' || n.type === 'waiting_on' ? { type: n.type, key: n.execution.key } : n,
        },
        '',
      ),
  };
}
