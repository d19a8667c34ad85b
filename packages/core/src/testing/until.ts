type Falsy<T> = T | null | undefined | false;

/** How often `until` looks again unless told: soon enough that a test waits little past the moment. */
const EVERY_MS = 50;

/**
 * Polls `fn` until it gives something truthy, and returns that; throws "timed out waiting for
 * <what>" after the timeout. A test waits for a positive signal this way, never for a fixed time.
 * `fn` may be async (a store read); `everyMs` spaces out checks that are dear (a `shop` process each).
 * The one copy every test uses (core's unit tests, the e2e harness).
 */
export async function until<T>(
  what: string,
  fn: () => Falsy<T> | Promise<Falsy<T>>,
  limit: number | { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const { timeoutMs = 15_000, everyMs = EVERY_MS } = typeof limit === 'number' ? { timeoutMs: limit } : limit;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
