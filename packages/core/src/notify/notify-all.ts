import type { AskNotice, NotifyResult } from './ask-notice.js';
import type { NoticeDeps } from './notice-deps.js';
import { describeEntry, parseTarget } from './parse-target.js';
import { sendNotice, type SendOptions } from './send.js';

/**
 * Sends one notice to every `notify = {…}` entry at once, so a slow webhook does not hold up
 * the desktop note. Never throws: a bad entry is a failed result like an unreachable one,
 * and the results come back in entry order.
 */
export async function notifyAll(
  targets: string[],
  notice: AskNotice,
  deps: NoticeDeps,
  options: SendOptions = {},
): Promise<NotifyResult[]> {
  return Promise.all(
    targets.map(async (entry): Promise<NotifyResult> => {
      const target = parseTarget(entry);
      if (typeof target === 'string') return { ok: false, target: describeEntry(entry), error: target };
      return sendNotice(target, notice, deps, options);
    }),
  );
}
