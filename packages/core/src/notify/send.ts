import { capText } from '../text.js';
import type { AskNotice, NotifyResult, NotifyTarget } from './ask-notice.js';
import { NoticeCommandError, type NoticeDeps } from './notice-deps.js';
import { desktopText, noteLine, noticeEnv, slackText } from './notice-text.js';
import { describeTarget, safeUrl } from './parse-target.js';
import { postJson } from './post-json.js';

export { nodeNoticeDeps, NoticeCommandError, type NoticeDeps } from './notice-deps.js';

/** Limits of one send; every field has a default. */
export interface SendOptions {
  /** Per HTTP attempt (webhook, slack). Default 3 s. */
  httpTimeoutMs?: number;
  /** HTTP attempts in all, first included. Default 3. */
  httpAttempts?: number;
  /** Waits before the 2nd, 3rd… attempt. Default 0.5 s, 1 s. */
  httpBackoffMs?: number[];
  /**
   * Every attempt and wait of one HTTP notice together. Default 5 s: a webhook that accepts
   * and never answers held `shop run`'s exit 17 s (3 × 5 s + waits); now at most this.
   */
  httpTotalMs?: number;
  /** A command notifier. Default 5 s (the command that asked waits for it before exiting). */
  commandTimeoutMs?: number;
  /** notify-send. Default 5 s. */
  desktopTimeoutMs?: number;
}

const SEND_DEFAULTS: Readonly<Required<SendOptions>> = {
  httpTimeoutMs: 3_000,
  httpAttempts: 3,
  httpBackoffMs: [500, 1_000],
  httpTotalMs: 5_000,
  commandTimeoutMs: 5_000,
  desktopTimeoutMs: 5_000,
};

/**
 * Sends one notice to one target. Never throws: a notice that cannot be delivered must not
 * break the run that asked, so every failure comes back as a result with a one-line error.
 */
export async function sendNotice(
  target: NotifyTarget,
  notice: AskNotice,
  deps: NoticeDeps,
  options: SendOptions = {},
): Promise<NotifyResult> {
  const opts = { ...SEND_DEFAULTS, ...options };
  const name = describeTarget(target);
  try {
    const error = await deliver(target, notice, deps, opts);
    if (error === null) return { ok: true, target: name };
    return { ok: false, target: name, error: capText(`${name}: ${hideUrl(error, target)}`) };
  } catch (e) {
    return {
      ok: false,
      target: name,
      error: capText(`${name}: ${hideUrl(e instanceof Error ? e.message : String(e), target)}`),
    };
  }
}

/** null when delivered, otherwise why not. */
async function deliver(
  target: NotifyTarget,
  notice: AskNotice,
  deps: NoticeDeps,
  opts: Required<SendOptions>,
): Promise<string | null> {
  switch (target.kind) {
    case 'webhook':
    case 'slack': {
      const body = target.kind === 'webhook' ? notice : { text: slackText(notice) };
      const post = {
        timeoutMs: opts.httpTimeoutMs,
        attempts: opts.httpAttempts,
        backoffMs: opts.httpBackoffMs,
        totalMs: opts.httpTotalMs,
      };
      const out = await postJson(target.url, body, deps, post);
      return out.ok ? null : `${out.why} (${out.attempts} attempt${out.attempts === 1 ? '' : 's'})`;
    }
    case 'command':
      return runNotifier(target.argv, noticeEnv(notice), opts.commandTimeoutMs, deps);
    case 'desktop':
      return desktop(notice, deps, opts.desktopTimeoutMs);
  }
}

async function runNotifier(
  argv: string[],
  env: Record<string, string>,
  timeoutMs: number,
  deps: NoticeDeps,
): Promise<string | null> {
  const program = argv[0] ?? '';
  if (deps.which(program) === null) return `${program} was not found (not on PATH, or not executable)`;
  return runArgv(argv, env, timeoutMs, deps);
}

async function runArgv(
  argv: string[],
  env: Record<string, string>,
  timeoutMs: number,
  deps: NoticeDeps,
): Promise<string | null> {
  const program = argv[0] ?? '';
  try {
    const { code, stderr } = await deps.runCommand(argv, env, timeoutMs);
    if (code === 0) return null;
    const last = lastLine(stderr);
    const how = code === null ? 'was killed by a signal' : `exited with code ${code}`;
    return `${program} ${how}${last ? `: ${capText(last, 160)}` : ''}`;
  } catch (e) {
    if (e instanceof NoticeCommandError) return e.message;
    throw e;
  }
}

/**
 * notify-send where there is one; otherwise (a server, an SSH session) the notice is one
 * line on stderr, which is where the person running Shop in a terminal will look.
 */
async function desktop(notice: AskNotice, deps: NoticeDeps, timeoutMs: number): Promise<string | null> {
  const notifySend = deps.which('notify-send');
  if (notifySend === null) {
    deps.note(noteLine(notice));
    return null;
  }
  const { title, body } = desktopText(notice);
  // "--": a question that starts with "-" is text, not an option.
  const failure = await runArgv([notifySend, '--', title, body], {}, timeoutMs, deps).catch((e: unknown) =>
    e instanceof Error ? e.message : String(e),
  );
  if (failure === null) return null;
  // notify-send fails without a session bus (SSH, cron): the note still reaches the person.
  deps.note(noteLine(notice));
  return `${failure}; the notice went to stderr instead`;
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines[lines.length - 1] ?? '';
}

/** An error from below may quote the URL (a runtime's message): show it as the target does. */
function hideUrl(text: string, target: NotifyTarget): string {
  return target.kind === 'webhook' || target.kind === 'slack' ? text.split(target.url).join(safeUrl(target.url)) : text;
}
