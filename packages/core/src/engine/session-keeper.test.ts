import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digest, type LocalTranscript } from '../agents/claude-transcript.js';
import { ConflictError } from '../errors.js';
import { exec, newRun, T } from '../store/contract/fixtures.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { EnginePorts } from './ports.js';
import { DEFAULT_SESSION_CAP, keepSession, restoreSession, sessionCap } from './session-keeper.js';
import type { SessionFiles } from './ports.js';
import { tempDir } from '../testing/temp-dir.js';

const dir = tempDir('shop-keeper-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One machine: its transcripts in memory, its name, over one store shared by every machine. */
function machine(store: Store, host: string, cap = 1000) {
  const files = new Map<string, Buffer>();
  const sessions: SessionFiles = {
    cap,
    read(_cwd, id, max): LocalTranscript {
      const data = files.get(id);
      if (!data) return { kind: 'missing' };
      return data.length > max
        ? { kind: 'tooBig', bytes: data.length }
        : { kind: 'ok', data, bytes: data.length, sha256: digest(data) };
    },
    write: (_cwd, id, data) => void files.set(id, data),
  };
  const ports = { store, sessions, self: { host, pid: 1, pidStart: null } } as unknown as EnginePorts;
  return { ports, files };
}

let store: Store;
let n = 0;
let ref: { runId: number; key: string; sessionId: string; cwd: string };
beforeEach(async () => {
  store = openSqliteStore(join(dir, `shop-${++n}.db`));
  const run = await store.createRun(newRun());
  await store.startExecution(T, exec(run.id, '1'));
  ref = { runId: run.id, key: '1', sessionId: 's-1', cwd: '/p' };
});
afterEach(async () => {
  await store.close();
});
const trail = async () =>
  (await store.listEvents(ref.runId)).filter((e) => e.type.startsWith('session_')).map((e) => [e.type, e.data]);

describe('keeping a session and putting it back on another machine', () => {
  it('a machine without the transcript gets the kept one; one that carries it further keeps its own', async () => {
    const a = machine(store, 'a');
    const b = machine(store, 'b');
    a.files.set('s-1', Buffer.from('one\ntwo\n'));
    await keepSession(a.ports, T, ref);
    await restoreSession(b.ports, T, ref, 'go');
    expect(b.files.get('s-1')!.toString()).toBe('one\ntwo\n');
    b.files.set('s-1', Buffer.from('one\ntwo\nthree\n'));
    await restoreSession(b.ports, T, ref, 'go');
    expect(b.files.get('s-1')!.toString()).toBe('one\ntwo\nthree\n');
    expect(await trail()).toEqual([
      ['session_restored', { session_id: 's-1', host: 'b', from: 'a', bytes: 8, replaced: false }],
    ]);
  });

  it('a local transcript that went another way (an attempt that died before it was kept) is replaced by the kept one, even if longer', async () => {
    const a = machine(store, 'a');
    const b = machine(store, 'b');
    a.files.set('s-1', Buffer.from('one\ntwo\nfrom a dead attempt, long long long\n'));
    b.files.set('s-1', Buffer.from('one\ntwo\nsaid on b\n'));
    await keepSession(b.ports, T, ref);
    await restoreSession(a.ports, T, ref, 'go');
    expect(a.files.get('s-1')!.toString()).toBe('one\ntwo\nsaid on b\n');
    expect((await trail()).at(-1)).toEqual([
      'session_restored',
      expect.objectContaining({ host: 'a', from: 'b', replaced: true }),
    ]);
  });

  it('keeping an unchanged transcript writes nothing; one over the cap is pinned once, and another machine is told where it is', async () => {
    const a = machine(store, 'a', 10);
    const b = machine(store, 'b', 10);
    a.files.set('s-1', Buffer.from('short\n'));
    await keepSession(a.ports, T, ref);
    const first = await store.loadSession(ref.runId, 's-1');
    await keepSession(a.ports, T, ref);
    expect((await store.loadSession(ref.runId, 's-1'))!.savedAt).toBe(first!.savedAt);
    a.files.set('s-1', Buffer.from('a good deal longer\n'));
    await keepSession(a.ports, T, ref);
    await keepSession(a.ports, T, ref);
    expect(await store.loadSession(ref.runId, 's-1')).toMatchObject({ host: 'a', gz: null, bytes: 19 });
    expect(await trail()).toEqual([['session_pinned', { session_id: 's-1', host: 'a', bytes: 19, cap: 10 }]]);
    const refused = restoreSession(b.ports, T, ref, 'resume it there');
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(refused).rejects.toThrow(/lives only on host a .*; resume it there on a$/);
    await restoreSession(a.ports, T, ref, 'resume it there');
    expect(a.files.get('s-1')!.toString()).toBe('a good deal longer\n');
  });

  it('a damaged kept transcript (not gzip, bigger than it says, another digest) is refused, never put in place', async () => {
    const b = machine(store, 'b');
    const rows = [
      { gz: Buffer.from('not gzip'), bytes: 8, sha256: 'x' },
      { gz: gzipSync(Buffer.alloc(100_000)), bytes: 10, sha256: digest(Buffer.alloc(100_000)) },
      { gz: gzipSync('one\n'), bytes: 4, sha256: digest(Buffer.from('two\n')) },
    ];
    for (const row of rows) {
      await store.saveSession(T, { runId: ref.runId, key: '1', sessionId: 's-1', host: 'a', ...row });
      await expect(restoreSession(b.ports, T, ref, 'go')).rejects.toThrow(
        /the session transcript kept in the store is damaged/,
      );
      expect(b.files.has('s-1')).toBe(false);
    }
  });
});

describe('SHOP_SESSION_CAP_MB', () => {
  it('sets the cap in MB (decimals too); 0 keeps no session; unset or nonsense: 64 MB', () => {
    expect(sessionCap({ SHOP_SESSION_CAP_MB: '2' })).toBe(2 * 1024 * 1024);
    expect(sessionCap({ SHOP_SESSION_CAP_MB: '0.0001' })).toBe(105);
    expect(sessionCap({ SHOP_SESSION_CAP_MB: '0' })).toBe(0);
    for (const v of [undefined, '', 'lots', '-1'])
      expect(sessionCap({ SHOP_SESSION_CAP_MB: v })).toBe(DEFAULT_SESSION_CAP);
  });
});
