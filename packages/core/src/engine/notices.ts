import type { AskNotice } from '../notify/ask-notice.js';
import type { NoticeDeps } from '../notify/notice-deps.js';
import { notifyAll } from '../notify/notify-all.js';
import type { Store } from '../store/store.js';

/** The port through which the engine tells people a run needs them (config{notify}). */
export interface Notices {
  /** Sends in the background; what came of it goes to the run's audit trail. */
  send(targets: string[], notice: AskNotice): void;
  /** Resolves when everything sent so far was delivered or failed, or after `ms`. */
  settle(ms?: number): Promise<void>;
}

/**
 * Notices through the real notifiers (notify/). A failing notifier never breaks the run:
 * the failure is an audit event (with the target shown without secrets).
 */
export function notifierNotices(store: Store, deps: NoticeDeps): Notices {
  const pending = new Set<Promise<void>>();
  return {
    send(targets, notice) {
      if (!targets.length) return;
      const sent = notifyAll(targets, notice, deps)
        .then(async (results) => {
          const at = { key: notice.call, actor: 'shop', channel: 'engine' as const };
          const ok = results.filter((r) => r.ok).map((r) => r.target);
          if (ok.length)
            await store.appendEvent(null, notice.run, {
              ...at,
              type: 'notified',
              data: { event: notice.event, to: ok },
            });
          for (const r of results)
            if (!r.ok)
              await store.appendEvent(null, notice.run, {
                ...at,
                type: 'notify_failed',
                data: { event: notice.event, to: r.target, error: r.error },
              });
        })
        .catch(() => {
          // The store closed under it (the process is leaving): nothing more to record.
        });
      const tracked = sent.finally(() => pending.delete(tracked));
      pending.add(tracked);
    },
    async settle(ms = 20_000) {
      if (!pending.size) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(pending), new Promise((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    },
  };
}
