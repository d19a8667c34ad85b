import type { NoticeDeps } from './notice-deps.js';

interface PostOptions {
  /** Per attempt, connection to response headers. */
  timeoutMs: number;
  attempts: number;
  /** Wait before attempt 2, 3, …; the last value repeats. */
  backoffMs: number[];
  /**
   * All attempts and waits together: a webhook that accepts and never answers must not hold
   * the command that asked (shop run, shop approve) past this. Default: no bound.
   */
  totalMs?: number;
}

/** ok, or why not in a few words (no URL: the caller names the target safely). */
type PostOutcome = { ok: true } | { ok: false; why: string; attempts: number };

/**
 * POSTs JSON, retrying what may pass on its own (network errors, timeouts, 5xx, 429) and
 * giving up at once on what will not (other 4xx, redirects: a webhook that moved is a
 * config error, and following it would re-send the body somewhere not configured).
 */
export async function postJson(url: string, body: unknown, deps: NoticeDeps, opts: PostOptions): Promise<PostOutcome> {
  const payload = JSON.stringify(body);
  const { target, headers } = withBasicAuth(url);
  const deadline = opts.totalMs === undefined ? Infinity : performance.now() + opts.totalMs;
  let why = '';
  let attempt = 0;
  while (attempt < opts.attempts) {
    if (attempt > 0) {
      const wait = opts.backoffMs[Math.min(attempt - 1, opts.backoffMs.length - 1)] ?? 0;
      // Not worth another try with less than a quarter second left after the wait.
      if (performance.now() + wait + 250 > deadline) break;
      await deps.sleep(wait);
    }
    attempt++;
    const timeoutMs = Math.min(opts.timeoutMs, Math.max(1, Math.floor(deadline - performance.now())));
    try {
      const res = await deps.fetch(target, {
        method: 'POST',
        headers,
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The body is not needed; dropping it frees the connection.
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { ok: true };
      why = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
      if (res.status !== 429 && res.status < 500) return { ok: false, why: `${why}, not retried`, attempts: attempt };
    } catch (e) {
      // Cut short by the bound on the whole notice: say that bound, not the attempt's odd remainder.
      why = networkWhy(
        e,
        timeoutMs < opts.timeoutMs ? `the ${opts.totalMs! / 1000} s given to a notice` : `${timeoutMs / 1000} s`,
      );
    }
  }
  return { ok: false, why, attempts: attempt };
}

/**
 * fetch refuses a URL holding user:password@ (so such a webhook never delivered): the
 * credentials go as HTTP Basic authentication instead, as curl and browsers send them.
 */
function withBasicAuth(url: string): { target: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const u = new URL(url);
  if (!u.username && !u.password) return { target: url, headers };
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { target: u.toString(), headers };
}

/** fetch rejects with "fetch failed" and the useful part (ECONNREFUSED, ENOTFOUND) in cause. */
function networkWhy(e: unknown, within: string): string {
  const err = e as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `no answer within ${within}`;
  return err?.cause?.code ?? err?.code ?? err?.cause?.message ?? err?.message ?? String(e);
}
