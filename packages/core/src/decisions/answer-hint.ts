import type { Execution } from '../types.js';
import { VERDICT_MATRIX, type Awaiting, type VerdictEffect } from './verdicts.js';

/**
 * How to answer a waiting call, as exact commands (what each verdict does comes from the
 * matrix). With `several`, every command names the call (--call), as it must then.
 */
export function answerHint(runId: number, exec: Execution, several = false): string[] {
  const hint = answerLines(runId, exec);
  return several ? hint.map((l) => l.replace(new RegExp(`(shop \\w+ ${runId})`), `$1 --call ${exec.key}`)) : hint;
}

function answerLines(runId: number, exec: Execution): string[] {
  if (exec.kind === 'pause') {
    const spec = exec.request as { decisions?: { id: string }[] } | null;
    const ids = spec?.decisions?.map((d) => d.id) ?? [];
    return [
      `  decide here:  shop continue ${runId}`,
      ids.length ? `  scripted:     shop signal ${runId} --answers '{${ids.map((id) => `"${id}": …`).join(', ')}}'` : `  approve:      shop approve ${runId}`,
      `  stop it:      shop reject ${runId} "why"`,
    ];
  }
  const row = VERDICT_MATRIX[(exec.awaiting ?? 'input') as Awaiting] ?? VERDICT_MATRIX.input;
  const effect = (e: VerdictEffect) => (e.kind === 'close' ? `returns ${e.status} to the workflow` : e.kind === 'back' ? 'goes back to the agent' : 'not allowed');
  const lines = [`  talk to the agent: shop continue ${runId}`];
  if ((exec.awaiting ?? 'input') === 'input') lines.push(`  answer it:         shop answer ${runId} "…"`);
  else lines.push(`  approve:           shop approve ${runId} [--message "…"]   (${effect(row.approved)})`);
  if (row.rejected.kind !== 'invalid') lines.push(`  reject:            shop reject ${runId} "feedback"   (${effect(row.rejected)})`);
  return lines;
}

/** The bare commands of the hint ("shop approve 3 --call 1/2/1 [--message "…"]"), for notices and --json. */
export function answerCommands(runId: number, exec: Execution, several = false): string[] {
  return answerHint(runId, exec, several).map((l) => l.replace(/^\s*[\w ]+:\s+/, '').replace(/\s+\(.*\)$/, ''));
}
