import type { NoticeDeps } from './notice-deps.js';

export interface PostOptions {
  /** Per attempt, connection to response headers. */
  timeoutMs: number;
  attempts: number;
  /** Wait before attempt 2, 3, …; the last value repeats. */
  backoffMs: number[];
}

/** ok, or why not in a few words (no URL: the caller names the target safely). */
export type PostOutcome = { ok: true } | { ok: false; why: string; attempts: number };

/**
 * POSTs JSON, retrying what may pass on its own (network errors, timeouts, 5xx, 429) and
 * giving up at once on what will not (other 4xx, redirects: a webhook that moved is a
 * config error, and following it would re-send the body somewhere not configured).
 */
export async function postJson(url: string, body: unknown, deps: NoticeDeps, opts: PostOptions): Promise<PostOutcome> {
  const payload = JSON.stringify(body);
  let why = '';
  for (let attempt = 1; attempt <= opts.attempts; attempt++) {
    if (attempt > 1) await deps.sleep(opts.backoffMs[Math.min(attempt - 2, opts.backoffMs.length - 1)] ?? 0);
    try {
      const res = await deps.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      // The body is not needed; dropping it frees the connection.
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { ok: true };
      why = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
      if (res.status !== 429 && res.status < 500) return { ok: false, why: `${why}, not retried`, attempts: attempt };
    } catch (e) {
      why = networkWhy(e, opts.timeoutMs);
    }
  }
  return { ok: false, why, attempts: opts.attempts };
}

/** fetch rejects with "fetch failed" and the useful part (ECONNREFUSED, ENOTFOUND) in cause. */
function networkWhy(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  return err?.cause?.code ?? err?.code ?? err?.cause?.message ?? err?.message ?? String(e);
}
