import { UsageError, handleOf, parseAskRef, parseCallRef, quoted } from '@shop/core';
import type { Execution, PickedAsk, ShopOperations } from '@shop/core';
import { Asker } from './asker.js';
import type { Context } from './context.js';
import { firstLine } from './output.js';
import type { Argv } from './command-spec.js';

/**
 * The ask an answering command answers. A handle (`33.4`, `33.4.2`, or `33 --call 4`) names
 * exactly one ask: answered already, it is a conflict (exit 6), never the call's newer ask.
 * A bare run id means its one open ask (`bare`: the command confirms it on a terminal, and
 * says which it answered off one).
 */
export async function pickTarget(
  ops: ShopOperations,
  args: Argv<{ readonly call?: string }>,
  usage: string,
): Promise<PickedAsk> {
  const raw = args.positionals[0];
  if (raw === undefined) throw new UsageError(`missing run id or ask handle; usage: ${usage}`);
  const ref = parseAskRef(raw);
  if (!ref)
    throw new UsageError(
      `${quoted(raw)} is not a run id or an ask handle (a run id such as 33, or a handle such as 33.4 as shop inbox shows it)`,
    );
  const call = args.values.call;
  if (call !== undefined && ref.key !== null)
    throw new UsageError(`${quoted(raw)} is a handle and already names the call: drop --call`);
  const callRef = call === undefined ? null : parseCallRef(call);
  if (call !== undefined && !callRef)
    throw new UsageError(
      `--call ${quoted(call)} is not a call key (such as 4, 4/1/2, or 4.2 for the call's second ask; see shop inbox)`,
    );
  const key = ref.key ?? callRef?.key ?? null;
  const ask = ref.ask ?? callRef?.ask ?? 1;
  return ops.pickAsk({ runId: ref.runId, key, ask }, args.command);
}

/** "33.5 — deployer asks (approval): Deploy to prod?" */
export function askLine(exec: Execution): string {
  const who = exec.kind === 'pause' ? 'the workflow asks' : `${exec.agent} asks`;
  return `${handleOf(exec)} — ${who} (${exec.awaiting ?? 'input'}): ${firstLine(exec.waitingFor ?? '')}`;
}

/**
 * A bare run id: on a terminal (stdin and stdout), show the question and ask before answering
 * (--yes skips it); "no" records nothing. Off a terminal (a script) it goes on: 'unseen', so
 * the answer's line says which ask it was.
 */
export async function confirmBare(
  ctx: Context,
  yes: boolean | undefined,
  exec: Execution,
  command: string,
): Promise<'confirmed' | 'unseen' | 'declined'> {
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (!terminal || yes) return 'unseen';
  ctx.out(`run ${exec.runId} waits on ${askLine(exec)}`);
  const asker = new Asker(`answer by its handle instead: shop ${command} ${handleOf(exec)}`, ctx.prompts);
  try {
    if (await asker.yesNo(`${command} ${handleOf(exec)}?`)) return 'confirmed';
  } finally {
    asker.close();
  }
  ctx.out(`nothing recorded; ${handleOf(exec)} still waits`);
  return 'declined';
}

/** After an answer given by bare run id that nobody confirmed: which ask it was. */
export const unseenNote = (exec: Execution) => `  (run ${exec.runId}'s one open ask: ${askLine(exec)})`;
