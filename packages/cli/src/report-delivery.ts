import {
  AGENT_FILE_CAP,
  ANSWER_FIELDS,
  ShopError,
  StoreError,
  UsageError,
  bytes,
  capName,
  checkSignal,
  fsWhy,
  quoted,
  writeSignal,
} from '@shop/core';
import type { ReportTarget, Signal } from '@shop/core';
import { dirname } from 'node:path';
import type { Context } from './context.js';

/** A report as an agent gives it: `shop report`'s arguments, or Shop's MCP tool's. */
export interface ReportInput {
  status: string;
  summary?: string;
  reason?: string;
  awaiting?: string;
  fields?: Record<string, unknown>;
}

/** How a front end names the report's parts in its one-line refusals. */
export interface ReportWording {
  field: (key: string) => string;
  own: Record<'status' | 'summary' | 'reason' | 'awaiting', string>;
  needsHuman: string;
  /** Where to read more, after a part given twice. */
  help: string;
}

/** The signal's body out of a report, its fields checked: none a person's answer, none one of its own parts. */
export function reportBody(input: ReportInput, say: ReportWording): Record<string, unknown> {
  const body: Record<string, unknown> = { status: input.status };
  for (const k of ['summary', 'reason', 'awaiting'] as const) if (input[k] !== undefined) body[k] = input[k];
  for (const [key, value] of Object.entries(input.fields ?? {})) {
    if ((ANSWER_FIELDS as readonly string[]).includes(key)) {
      throw new UsageError(
        `${say.field(key)}: ${ANSWER_FIELDS.join(', ')} are a person's answer, never an agent's report; report your own status and let the person answer`,
      );
    }
    // `shop report DONE --field status=FAILED` reported FAILED: a field overrode what the command line says plainly.
    const own = say.own[key as keyof ReportWording['own']];
    if (own) throw new UsageError(`${say.field(key)}: give it as ${own}, once (${say.help})`);
    // A person's options come from an ask (Shop's MCP tool), checked as such, never from a field.
    if (key === 'choices') throw new UsageError(`${say.field(key)}: choices are an ask's options (${say.help})`);
    body[key] = value;
  }
  // An ask with no question leaves the person guessing what the agent needs.
  if (input.status === 'NEEDS_HUMAN' && !String(body.reason ?? body.summary ?? '').trim()) {
    throw new UsageError(`NEEDS_HUMAN needs the question for the person: ${say.needsHuman}`);
  }
  return body;
}

/**
 * Checks a signal's body and delivers it as `shop report` always has: first into the run's store
 * for the call's current attempt only (a refusal, not this attempt, writes nothing), then to the
 * file SHOP_SIGNAL_FILE names. Returns the line that says where it went; a refusal throws.
 */
export async function deliverReport(ctx: Context, body: Record<string, unknown>): Promise<string> {
  const file = ctx.env.SHOP_SIGNAL_FILE;
  if (!file) throw new UsageError('reports go to a step Shop started: SHOP_SIGNAL_FILE is not set');
  const read = checkSignal(body);
  if (read.kind !== 'ok') throw new UsageError(`bad signal: ${read.kind === 'invalid' ? read.problem : 'empty'}`);
  const size = Buffer.byteLength(JSON.stringify(read.signal)) + 1;
  if (size > AGENT_FILE_CAP)
    throw new UsageError(
      `the report is ${bytes(size)}, more than the ${capName(AGENT_FILE_CAP)} a signal may hold; put long text in a file in the workspace and report its path`,
    );
  // Inside a step Shop started (its run and call given): first into the run's store, for the
  // call's current attempt only, so no reader depends on this machine's disk.
  const target = reportTarget(ctx, file);
  // A store out of this process's reach (an agent's sandbox with no network: Codex's
  // workspace-write) is not a refusal: the file still reaches a driver on this machine, and
  // its path is the attempt's own. A refusal (not this attempt) writes nothing. Only when
  // neither the store nor the file takes it did the report reach nothing: an error then.
  const unreachable = target ? await recordInStore(ctx, target, read.signal) : null;
  const unwritten = written(file, read.signal);
  if (unwritten) {
    const cannot = `could not write the signal file ${file}: ${unwritten.why}`;
    // A folder, or a path through a file: not a path Shop gives (exit 2). Else the place refused it (read-only, full …).
    if (!target && (unwritten.code === 'EISDIR' || unwritten.code === 'ENOTDIR'))
      throw new UsageError(`${cannot}; SHOP_SIGNAL_FILE must name a file Shop gave this step`);
    const step = `the agent's step must be able to write ${dirname(file)}`;
    if (!target) throw new ShopError(`${cannot}; nothing was reported: ${step}`);
    if (unreachable)
      throw new ShopError(
        `${cannot}, and the run's store is out of reach here (${unreachable}): nothing was reported; ${step}`,
      );
    return `reported ${read.signal.status} to the store of run ${target.runId} (${file} could not be written here: ${unwritten.why})`;
  }
  if (unreachable)
    return `reported ${read.signal.status} to ${file} only: the run's store is out of reach here (${unreachable}); the driver on this machine reads the file`;
  return `reported ${read.signal.status} to ${file}${target ? ' and the store' : ''}`;
}

/** Writes the signal file; null when done, else why not (a file system error: read-only, a folder in its place …). */
function written(file: string, signal: Signal): { code: string; why: string } | null {
  try {
    writeSignal(file, signal);
    return null;
  } catch (e) {
    const why = fsWhy(e);
    if (!why) throw e;
    return { code: (e as NodeJS.ErrnoException).code!, why };
  }
}

/** Records the report in the run's store; null when done, else why the store could not be reached (a refusal throws). */
async function recordInStore(ctx: Context, target: ReportTarget, signal: Signal): Promise<string | null> {
  try {
    await (await ctx.ops({ quiet: true })).report(target, signal);
    return null;
  } catch (e) {
    if (e instanceof StoreError) return e.message;
    throw e;
  }
}

/** The step's run and call (SHOP_RUN_ID, SHOP_CALL) when Shop started it in a project: its report goes to the store too. */
function reportTarget(ctx: Context, signalPath: string): ReportTarget | null {
  const runText = ctx.env.SHOP_RUN_ID;
  const key = ctx.env.SHOP_CALL;
  if (!runText || !key || !ctx.project.found) return null;
  if (!/^[1-9][0-9]{0,15}$/.test(runText) || key.length > 200)
    throw new UsageError(
      `SHOP_RUN_ID=${quoted(runText.slice(0, 40))} / SHOP_CALL are not a step Shop started; shop report runs inside an agent step`,
    );
  return { runId: Number(runText), key, signalPath };
}
