import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { digest } from '../agents/claude-transcript.js';
import { ConflictError } from '../errors.js';
import { bytes } from '../text.js';
import type { EnginePorts } from './ports.js';
import type { SessionInfo } from '../store/session-store.js';

/** Node's zlib is needed only when a transcript is kept or restored: required then, not at every command's start-up. */
const required = createRequire(import.meta.url);
const zlib = () => required('node:zlib') as typeof import('node:zlib');
const gzip = (data: Buffer) => promisify(zlib().gzip)(data);
const gunzip = (data: Buffer, options: import('node:zlib').ZlibOptions) => promisify(zlib().gunzip)(data, options);

/** A transcript above this (SHOP_SESSION_CAP_MB, default 64 MB) is not kept: the run's session stays on its host. */
export const DEFAULT_SESSION_CAP = 64 * 1024 * 1024;

/** The call whose session moves: its run, key, Claude session and the directory it runs in. */
export interface SessionRef {
  runId: number;
  key: string;
  sessionId: string;
  cwd: string;
}

/**
 * After an agent step: its transcript goes to the store (gzip), so the next step of the call
 * — feedback, a retry, a takeover, `shop continue` — can resume it on any machine. Unchanged
 * since last kept: nothing written. Over the cap: only where it lives is kept, and the trail
 * says the run's session is pinned to this host. `token`: the run's owner, or the person's hold.
 */
export async function keepSession(ports: EnginePorts, token: string, ref: SessionRef): Promise<void> {
  const files = ports.sessions;
  if (!files) return;
  const local = files.read(ref.cwd, ref.sessionId, files.cap);
  if (local.kind === 'missing') return;
  const before = (await ports.store.listSessions(ref.runId)).find((s) => s.sessionId === ref.sessionId);
  const host = ports.self.host;
  const base = { runId: ref.runId, key: ref.key, sessionId: ref.sessionId, host };
  if (local.kind === 'tooBig') {
    if (before && before.gzBytes === null && before.host === host && before.bytes === local.bytes) return;
    const data = { session_id: ref.sessionId, host, bytes: local.bytes, cap: files.cap };
    await ports.store.saveSession(
      token,
      { ...base, bytes: local.bytes, sha256: '', gz: null },
      { type: 'session_pinned', key: ref.key, actor: 'shop', channel: 'engine', data },
    );
    return;
  }
  if (before && before.sha256 === local.sha256 && before.host === host) return;
  await ports.store.saveSession(token, {
    ...base,
    bytes: local.bytes,
    sha256: local.sha256,
    gz: await gzip(local.data),
  });
}

/**
 * Before `claude --resume`: the session's transcript is put in place from the store when this
 * machine lacks it or holds another one — older, or from an attempt that died before it was
 * kept while the conversation went on elsewhere (say a shop continue on another machine). A
 * local one that carries the kept one on (it starts with it) stays: this machine went further.
 * A session pinned to another host cannot be resumed here: a ConflictError says where to go.
 * `token`: the driver's, for its trail (null: any process, shop continue).
 */
export async function restoreSession(
  ports: EnginePorts,
  token: string | null,
  ref: SessionRef,
  where: string,
): Promise<void> {
  const files = ports.sessions;
  if (!files) return;
  const kept = await ports.store.loadSession(ref.runId, ref.sessionId);
  if (!kept) return;
  const local = files.read(ref.cwd, ref.sessionId, files.cap);
  if (kept.gz === null) {
    if (local.kind !== 'missing' || kept.host === ports.self.host) return;
    throw new ConflictError(
      `run ${ref.runId} call ${ref.key}: its Claude session lives only on host ${kept.host} (its transcript, ${bytes(kept.bytes)}, is over the ${bytes(files.cap)} the store keeps, SHOP_SESSION_CAP_MB); ${where} on ${kept.host}`,
    );
  }
  if (local.kind === 'tooBig' || (local.kind === 'ok' && local.sha256 === kept.sha256)) return;
  const damaged = (why: string) =>
    new ConflictError(`run ${ref.runId} call ${ref.key}: the session transcript kept in the store is damaged (${why})`);
  // Never more than the row says it holds (a damaged or hostile row is no gzip bomb).
  const data = await gunzip(kept.gz, { maxOutputLength: Math.max(1, kept.bytes) }).catch((e: unknown) => {
    throw damaged((e as NodeJS.ErrnoException).code ?? 'not gzip');
  });
  // A kept transcript that does not match its own digest is not put where Claude Code reads it.
  if (digest(data) !== kept.sha256) throw damaged('digest mismatch');
  if (local.kind === 'ok' && local.bytes > data.length && local.data.subarray(0, data.length).equals(data)) return;
  files.write(ref.cwd, ref.sessionId, data);
  await ports.store.appendEvent(token, ref.runId, {
    type: 'session_restored',
    key: ref.key,
    actor: 'shop',
    channel: token ? 'engine' : 'continue',
    data: {
      session_id: ref.sessionId,
      host: ports.self.host,
      from: kept.host,
      bytes: kept.bytes,
      replaced: local.kind === 'ok',
    },
  });
}

/**
 * SHOP_SESSION_CAP_MB (decimals allowed): the largest transcript the store keeps; 0 keeps none
 * (every session stays on its machine: one machine, or a store that must not grow by them).
 */
export function sessionCap(env: NodeJS.ProcessEnv): number {
  const text = env.SHOP_SESSION_CAP_MB?.trim();
  const mb = Number(text);
  if (!text || !Number.isFinite(mb) || mb < 0) return DEFAULT_SESSION_CAP;
  return Math.round(mb * 1024 * 1024);
}

/**
 * A session of the run pinned to another host (its transcript over the cap lives only there),
 * or null: a worker on this host leaves such a run to that host's worker (shop status says where).
 */
export async function pinnedElsewhere(
  ports: Pick<EnginePorts, 'store' | 'self' | 'sessions'>,
  runId: number,
): Promise<SessionInfo | null> {
  if (!ports.sessions) return null;
  return (await ports.store.listSessions(runId)).find((s) => s.gzBytes === null && s.host !== ports.self.host) ?? null;
}
