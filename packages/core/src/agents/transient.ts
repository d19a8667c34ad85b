import { capText } from '../text.js';

/**
 * Which agent failures (Claude Code's, Codex's, Gemini CLI's) may pass on their own and are worth another attempt on the same
 * session: the API overloaded (529), rate-limited (429) or failing on its side (5xx), or the
 * network between. Everything else — a bad key, a logged-out CLI, a bad flag, a refused
 * request — fails at once: retrying it only delays the same answer.
 */
type TransientKind = 'overloaded' | 'rate_limit' | 'server_error' | 'network';

export interface Transient {
  kind: TransientKind;
  /** The error as the agent CLI said it, on one capped line (for the audit trail and messages). */
  detail: string;
}

/** What an agent process left behind that tells how it failed. */
interface FailureEvidence {
  /** Claude Code's final result said `is_error: true`. */
  isError: boolean;
  /** The result's `api_error_status` (Claude Code ≥ 2.1: the HTTP status of the failed API call). */
  apiStatus?: number | null;
  /** The final result text ("API Error: 529 {…overloaded_error…}"), if any. */
  resultText?: string | null;
  /** The tail of the process's stderr. */
  stderr?: string | null;
  /** No signal and no is_error result: the process just ended (exit code ≠ 0 or killed). */
  exitCode?: number | null;
}

const STATUS_KIND: Record<number, TransientKind> = {
  429: 'rate_limit',
  500: 'server_error',
  502: 'server_error',
  503: 'server_error',
  504: 'server_error',
  529: 'overloaded',
};

/** Never transient, whatever else the text says: the person has to act (log in, fix a key or a flag, wait out a plan's limit). */
const PERMANENT =
  /invalid api key|invalid x-api-key|authentication_error|permission_error|not logged in|please run \/login|oauth|credit balance|usage limit|unknown option|invalid_request_error|no conversation found|please set an auth method|not running in a trusted directory|not inside a trusted directory/i;
/** Claude's and Gemini's "overloaded"; Codex's "at capacity" and "high demand". */
const OVERLOADED = /overloaded|at capacity|high demand/i;
const RATE_LIMIT = /rate[ _-]?limit/i;
const NETWORK =
  /\b(ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EPIPE|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)\b|fetch failed|socket hang up|network error|connection error/i;
/**
 * The HTTP status in an error's text: "API Error: 529 …", "API Error (529 …)" (older Claude Code),
 * "last status: 429" (Codex), `"code":503` (Gemini CLI's API error body).
 */
const STATUS_IN_TEXT = /API Error:?\s*\(?\s*(\d{3})\b|last status:\s*(\d{3})\b|"code":\s*(\d{3})\b/i;

/** The transient failure this evidence shows, or null when it is not one (or not a failure). */
export function classifyFailure(e: FailureEvidence): Transient | null {
  // Read from the agent's own output: anything may be there, so nothing is assumed of its type.
  const text = typeof e.resultText === 'string' ? e.resultText.slice(0, 20_000) : '';
  const stderr = typeof e.stderr === 'string' ? e.stderr.slice(-20_000) : '';
  const failed = e.isError || (e.exitCode !== undefined && e.exitCode !== 0);
  if (!failed) return null;
  if (PERMANENT.test(text) || PERMANENT.test(stderr)) return null;
  const status = typeof e.apiStatus === 'number' && Number.isInteger(e.apiStatus) ? e.apiStatus : statusIn(text);
  const detail = (s: string) => capText(s || `API status ${status}`, 300);
  if (status !== null) {
    const kind = STATUS_KIND[status];
    // A status Claude Code named decides: a 400 or a 401 is not retried even if its text says "rate".
    return kind ? { kind, detail: detail(text) } : null;
  }
  if (e.isError && OVERLOADED.test(text)) return { kind: 'overloaded', detail: detail(text) };
  if (e.isError && RATE_LIMIT.test(text)) return { kind: 'rate_limit', detail: detail(text) };
  const net = NETWORK.exec(text) ? text : NETWORK.exec(stderr) ? lastLineWith(stderr, NETWORK) : null;
  if (net !== null) return { kind: 'network', detail: detail(net) };
  return null;
}

function statusIn(text: string): number | null {
  const m = STATUS_IN_TEXT.exec(text);
  const found = m?.slice(1).find((g) => g !== undefined);
  return found ? Number(found) : null;
}

function lastLineWith(text: string, re: RegExp): string {
  return (
    text
      .split('\n')
      .reverse()
      .find((l) => re.test(l))
      ?.trim() ?? text.trim()
  );
}

/** A transient failure in a few words: "API overloaded (529)", "network error". */
export function describeTransient(t: Pick<Transient, 'kind'>): string {
  return {
    overloaded: 'API overloaded',
    rate_limit: 'rate limited',
    server_error: 'API server error',
    network: 'network error',
  }[t.kind];
}
