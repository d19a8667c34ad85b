import { parseAskRef } from '../decisions/ask-handle.js';
import { UsageError } from '../errors.js';
import { pendingJson } from './json-views.js';
import { pickAsk } from './pick-ask.js';
import { loadRunView } from './run-view.js';
import type { PendingJson } from './shapes.js';
import type { Store } from '../store/store.js';

/** Handles are short ("33.4/2/1.2"); anything longer is not one. */
const MAX_HANDLE = 200;

/**
 * The open ask a handle names, as the page shows it — or the typed error answering it would
 * give (answered already: who and when; no such ask), with nothing recorded. The form is read
 * against this ask before core checks the answer again (answerAsk).
 */
export async function openAsk(store: Store, handle: string): Promise<{ runId: number; pending: PendingJson }> {
  const ref = handle.length <= MAX_HANDLE ? parseAskRef(handle) : null;
  if (!ref || ref.key === null) throw new UsageError(`${JSON.stringify(handle.slice(0, 60))} is not an ask handle (such as 33.4, as the inbox shows it)`);
  const view = await loadRunView(store, ref.runId, { last: 0 });
  const exec = await pickAsk(store, view, { key: ref.key, ask: ref.ask ?? 1 });
  return { runId: ref.runId, pending: pendingJson(ref.runId, exec) };
}
