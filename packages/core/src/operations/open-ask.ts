import type { Store } from '../store/store.js';
import type { Liveness } from '../run-status.js';
import { handleRef, pickAskRef } from './pick-ask.js';
import { pendingJson } from './json-views.js';
import type { Execution } from '../types.js';
import type { PendingJson } from './shapes.js';

/** An open ask: its call (to answer it without picking it again) and how pages show it. */
export interface OpenAsk {
  runId: number;
  exec: Execution;
  pending: PendingJson;
}

/**
 * The open ask a handle names, as the page shows it — or the typed error answering it would
 * give (answered already: who and when; no such ask), with nothing recorded. The form is read
 * against this ask before core checks the answer again (answerAsk), picked the same way.
 */
export async function openAsk(store: Store, liveness: Liveness, handle: string): Promise<OpenAsk> {
  const { exec } = await pickAskRef(store, liveness, handleRef(handle), 'answer');
  return { runId: exec.runId, exec, pending: pendingJson(exec.runId, exec) };
}
