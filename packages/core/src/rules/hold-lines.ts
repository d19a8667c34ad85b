import { capText } from '../text.js';
import type { RunHold } from '../types.js';

/** "agents/deployer.md", "agents/deployer.md (new) and workflows/deploy.lua (deleted)". */
export function changedFiles(files: RunHold['files']): string {
  const named = files.map(
    (f) => `${capText(f.path, 120)}${f.before === null ? ' (new)' : f.after === null ? ' (deleted)' : ''}`,
  );
  return named.length <= 1 ? (named[0] ?? 'no file') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/** "step 7.3 (coder)", or "step 7.4 (sh)" for a command. */
export const heldStep = (runId: number, held: Pick<RunHold, 'key' | 'agent'>) =>
  `step ${runId}.${held.key} (${held.agent ?? 'sh'})`;

/** What a person does about a held run. */
function whatToDo(runId: number, held: RunHold): string {
  const one = held.files.length === 1;
  return `check the change${one ? '' : 's'}, then shop resume ${runId} --accept-changes (or restore the file${one ? '' : 's'} and shop resume ${runId})`;
}

/** The held run's reason: which files changed during which step, and what to do. */
export function heldReason(runId: number, held: RunHold): string {
  const when = held.interrupted
    ? `while ${heldStep(runId, held)} ran, or since its driver stopped`
    : `during ${heldStep(runId, held)}`;
  return `${changedFiles(held.files)} changed ${when}; ${whatToDo(runId, held)}`;
}

/** shop resume of a held run whose files are not back as they were: refused with this. */
export function heldRefusal(runId: number, held: RunHold, still: RunHold['files']): string {
  return `run ${runId} is held: ${changedFiles(still)} changed ${held.interrupted ? 'while' : 'during'} ${heldStep(runId, held)} and ${still.length === 1 ? 'is' : 'are'} not as before it; ${whatToDo(runId, { ...held, files: still })}`;
}
