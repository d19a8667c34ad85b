import { NonDeterminismError } from '../errors.js';
import type { CallRequest } from '../lua/requests.js';
import type { Store } from '../store/store.js';
import { capText } from '../text.js';
import type { Execution, ReplayRecord } from '../types.js';

const quote = (s: string | null | undefined) => JSON.stringify(capText(s ?? '', 80));
const shown = (fingerprint: string) => fingerprint.split(' #')[0];

/**
 * A non-determinism error that says what changed: for the same agent, the prompt or the
 * options; for the same pause, its decisions; for a command, the command.
 */
export async function explainMismatch(store: Store, runId: number, runPrompt: string, key: string, req: CallRequest): Promise<NonDeterminismError> {
  const rec = await store.getExecution(runId, key);
  if (!rec) return new NonDeterminismError(key, 'nothing', 'makes a call');
  const [recorded, attempted] = difference(rec, req, runPrompt);
  return new NonDeterminismError(key, recorded, `calls ${attempted}`);
}

function difference(rec: Execution, req: CallRequest, runPrompt: string): [string, string] {
  const was = shown(rec.fingerprint);
  if (req.type === 'run' && rec.kind === 'run' && rec.agent === req.agent) {
    const prompt = req.prompt || runPrompt || null;
    if (rec.prompt !== prompt && prompt !== null) return [`${was} with prompt ${quote(rec.prompt)}`, `${was} with prompt ${quote(prompt)}`];
    return [`${was} with options ${capText(JSON.stringify(rec.request ?? {}), 120)}`, `${was} with options ${capText(JSON.stringify(req.opts), 120)}`];
  }
  if (req.type === 'pause' && rec.kind === 'pause' && rec.prompt === req.spec.message) {
    const spec = (s: unknown) => capText(JSON.stringify((s as { decisions?: unknown } | null)?.decisions ?? []), 160);
    return [`${was} with decisions ${spec(rec.request)}`, `${was} with decisions ${spec(req.spec)}`];
  }
  if (req.type === 'sh' && rec.kind === 'sh' && rec.prompt === (req.cmd ?? req.argv!.join(' '))) {
    return [`${was} with options ${capText(JSON.stringify((rec.request as { opts?: unknown })?.opts ?? {}), 120)}`, `${was} with options ${capText(JSON.stringify(req.opts), 120)}`];
  }
  return [was, describe(req)];
}

function describe(req: CallRequest): string {
  switch (req.type) {
    case 'run':
      return `run("${req.agent}")`;
    case 'pause':
      return `pause(${quote(req.spec.message)})`;
    case 'sh':
      return `sh(${quote(req.cmd ?? req.argv!.join(' '))})`;
    case 'parallel':
      return `parallel(${req.branches} branches)`;
    case 'patched':
      return `patched("${req.id}")`;
    case 'now':
      return 'now()';
  }
}

/** A recorded call the script no longer reaches: it ended, or goes another way, before it. */
export function unreached(rec: ReplayRecord, how: string): NonDeterminismError {
  return new NonDeterminismError(rec.key, shown(rec.fingerprint), how);
}
