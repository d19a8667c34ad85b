import type { TokenCounts } from '../types.js';

/** More tokens than any invocation uses: a larger figure is not a count (nor a cost of dollars). */
const MAX_TOKENS = 1e12;
const MAX_USD = 1e6;

/** A count a CLI reported: a non-negative whole number within bounds, else unknown. */
export function tokenCount(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_TOKENS ? v : null;
}

/** A cost in USD a CLI reported: a non-negative finite number within bounds, else unknown. */
export function usd(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_USD ? v : null;
}

/** Counts known in none of the kinds: the CLI said nothing, so nothing is recorded. */
export const someTokens = (t: TokenCounts): TokenCounts | undefined =>
  t.input === null && t.output === null && t.cacheRead === null && t.cacheWrite === null ? undefined : t;

const plus = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a + b, MAX_TOKENS));

/**
 * Claude Code's per-model usage (`modelUsage`, `model_usage_since_last_result`): each model's
 * tokens and cost, summed over the models. Entries that are not objects count for nothing.
 */
export function claudeModelUsage(v: unknown): { costUsd: number | null; tokens: TokenCounts | undefined } | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  let cost: number | null = null;
  let t: TokenCounts = { input: null, output: null, cacheRead: null, cacheWrite: null };
  for (const m of Object.values(v as Record<string, unknown>).slice(0, 100)) {
    if (!m || typeof m !== 'object') continue;
    const u = m as Record<string, unknown>;
    const c = usd(u.costUSD);
    if (c !== null) cost = Math.min((cost ?? 0) + c, MAX_USD);
    t = {
      input: plus(t.input, tokenCount(u.inputTokens)),
      output: plus(t.output, tokenCount(u.outputTokens)),
      cacheRead: plus(t.cacheRead, tokenCount(u.cacheReadInputTokens)),
      cacheWrite: plus(t.cacheWrite, tokenCount(u.cacheCreationInputTokens)),
    };
  }
  return { costUsd: cost, tokens: someTokens(t) };
}

/** Claude Code's `usage` (the API's shape): the main loop's tokens. */
export function claudeUsage(v: unknown): TokenCounts | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const u = v as Record<string, unknown>;
  return someTokens({
    input: tokenCount(u.input_tokens),
    output: tokenCount(u.output_tokens),
    cacheRead: tokenCount(u.cache_read_input_tokens),
    cacheWrite: tokenCount(u.cache_creation_input_tokens),
  });
}

/**
 * Codex's `usage` on turn.completed (`codex exec --json`): the thread's tokens so far, its input
 * counting the cached part (OpenAI's shape). Shop's input is what was read fresh: input − cached.
 */
export function codexUsage(v: unknown): TokenCounts | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const u = v as Record<string, unknown>;
  const input = tokenCount(u.input_tokens);
  const cached = tokenCount(u.cached_input_tokens);
  return someTokens({
    input: input === null ? null : Math.max(0, input - (cached ?? 0)),
    output: tokenCount(u.output_tokens),
    cacheRead: cached,
    cacheWrite: null,
  });
}

/**
 * Gemini CLI's `stats` on its result event (stream-json): this process's tokens over its models;
 * `input_tokens` counts the cached part, `input` (newer versions) the rest.
 */
export function geminiUsage(v: unknown): TokenCounts | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const s = v as Record<string, unknown>;
  const prompt = tokenCount(s.input_tokens);
  const cached = tokenCount(s.cached);
  const fresh = tokenCount(s.input) ?? (prompt === null ? null : Math.max(0, prompt - (cached ?? 0)));
  return someTokens({ input: fresh, output: tokenCount(s.output_tokens), cacheRead: cached, cacheWrite: null });
}

/**
 * An invocation's own tokens from its session's running total (`total`) and what the call had
 * recorded before it (`before`): kind by kind, the difference. A total below what came before
 * is a session begun anew (its total is all its own).
 */
export function sinceBefore(total: TokenCounts, before: TokenCounts): TokenCounts {
  const less = (k: keyof TokenCounts) => (total[k] === null ? null : total[k] - (before[k] ?? 0));
  const own = {
    input: less('input'),
    output: less('output'),
    cacheRead: less('cacheRead'),
    cacheWrite: less('cacheWrite'),
  };
  return Object.values(own).some((n) => n !== null && n < 0) ? total : own;
}

/** A step result's `tokens`, present only where the CLI said some. */
export const withTokens = (tokens: TokenCounts | undefined): { tokens?: TokenCounts } => (tokens ? { tokens } : {});
