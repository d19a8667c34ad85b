import { gzipSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LostOwnershipError } from '../../errors.js';
import {
  ended,
  eventTypes,
  exec,
  newRun,
  OTHER,
  owner,
  T,
  useStore,
  waitingRun,
  type StoreAdapter,
} from './fixtures.js';

const transcript = (text: string) => ({
  bytes: Buffer.byteLength(text),
  sha256: `sha-${text.length}`,
  gz: gzipSync(text),
});
const kept = (runId: number, text: string, over: Record<string, unknown> = {}) => ({
  runId,
  key: '1',
  sessionId: 's-1',
  host: 'host-a',
  ...transcript(text),
  ...over,
});

export function sessionsAndReports(adapter: StoreAdapter) {
  describe('sessions kept across machines', () => {
    const ctx = useStore(adapter);

    it('the owner keeps a transcript and any process loads it back byte for byte; keeping again replaces it', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.saveSession(T, kept(run.id, '{"type":"user"}\n'));
      ctx.clock.t += 5;
      await store.saveSession(T, kept(run.id, '{"type":"user"}\n{"type":"assistant"}\n', { host: 'host-b' }));
      const other = await adapter.connect(store, () => ctx.clock.t);
      const back = await other.loadSession(run.id, 's-1');
      await other.close();
      expect(back).toMatchObject({
        runId: run.id,
        key: '1',
        sessionId: 's-1',
        host: 'host-b',
        bytes: 37,
        savedAt: ctx.clock.t,
      });
      expect(gunzipSync(back!.gz!).toString()).toBe('{"type":"user"}\n{"type":"assistant"}\n');
      expect(await store.loadSession(run.id, 'no-such-session')).toBeNull();
      const [info, ...rest] = await store.listSessions(run.id);
      expect(rest).toEqual([]);
      expect(info).toMatchObject({ sessionId: 's-1', host: 'host-b', bytes: 37, gzBytes: back!.gz!.length });
      expect(info).not.toHaveProperty('gz');
    });

    it('a pinned session (over the cap) keeps no transcript, only where it lives, and its event with it', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const pinned = {
        runId: run.id,
        key: '1',
        sessionId: 's-1',
        host: 'host-a',
        bytes: 99_000_000,
        sha256: 'x',
        gz: null,
      };
      const undo = await adapter.failEvents(store, 'session_pinned');
      const event = {
        type: 'session_pinned',
        key: '1',
        actor: 'shop',
        channel: 'engine' as const,
        data: { host: 'host-a' },
      };
      await expect(store.saveSession(T, pinned, event)).rejects.toThrow();
      expect(await store.loadSession(run.id, 's-1')).toBeNull();
      await undo();
      await store.saveSession(T, pinned, event);
      expect(await store.loadSession(run.id, 's-1')).toMatchObject({ host: 'host-a', bytes: 99_000_000, gz: null });
      expect((await store.listSessions(run.id))[0]).toMatchObject({ gzBytes: null });
      expect(await eventTypes(store, run.id)).toContain('session_pinned');
    });

    it('claimIdleRuns leaves a run whose session is pinned to another host to that host', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.saveSession(T, {
        runId: run.id,
        key: '1',
        sessionId: 's-1',
        host: 'host-a',
        bytes: 99_000_000,
        sha256: 'x',
        gz: null,
      });
      await store.releaseRun(run.id, T, { ifIdle: false });
      expect(await store.claimIdleRuns({ ...owner('on-b'), host: 'host-b' }, 15_000, 10)).toEqual([]);
      expect((await store.claimIdleRuns({ ...owner('on-a'), host: 'host-a' }, 15_000, 10)).map((r) => r.id)).toEqual([
        run.id,
      ]);
    });

    it("only the run's owner, or the person holding the call's session, keeps a transcript (fencing)", async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await expect(store.saveSession(OTHER, kept(id, 'stale driver'))).rejects.toThrow(LostOwnershipError);
      expect(await store.loadSession(id, 's-1')).toBeNull();
      await store.holdSession(
        id,
        '1',
        { token: 'hold-1', by: 'ann', host: 'host-b', pid: 7, pidStart: null },
        { ask: 1, staleHold: null },
      );
      await store.saveSession('hold-1', kept(id, 'after shop continue', { host: 'host-b' }));
      expect(await store.loadSession(id, 's-1')).toMatchObject({ host: 'host-b' });
      await store.releaseSession(id, '1', 'hold-1');
      await expect(store.saveSession('hold-1', kept(id, 'late'))).rejects.toThrow(LostOwnershipError);
    });

    it('deleting a run deletes its sessions and reports', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1', { signalPath: '/s/1.a' }));
      await store.saveSession(T, kept(run.id, 'x'));
      expect(await store.recordReport(run.id, '1', '/s/1.a', '{"status":"DONE"}')).toBe(true);
      await store.finishRun(T, run.id, ended());
      await store.releaseRun(run.id, T, { ifIdle: false });
      expect(await store.deleteRun(run.id)).toBe('deleted');
      expect(await store.loadSession(run.id, 's-1')).toBeNull();
      expect(await store.listSessions(run.id)).toEqual([]);
      expect(await store.getReport(run.id, '1', '/s/1.a')).toBeNull();
    });
  });

  describe("reports kept for the call's attempt (shop report)", () => {
    const ctx = useStore(adapter);

    it("a running call's current attempt takes a report; another path, an earlier attempt or an ended run does not", async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1', { signalPath: '/s/1.first' }));
      expect(await store.recordReport(run.id, '1', '/s/1.guessed', '{"status":"DONE"}')).toBe(false);
      expect(await store.recordReport(run.id, '9', '/s/1.first', '{"status":"DONE"}')).toBe(false);
      expect(await store.recordReport(run.id, '1', '/s/1.first', '{"status":"NEEDS_HUMAN"}')).toBe(true);
      expect(await store.getReport(run.id, '1', '/s/1.first')).toBe('{"status":"NEEDS_HUMAN"}');
      expect(await store.getReport(run.id, '1', '/s/1.guessed')).toBeNull();
      // A new attempt (feedback, a crash) reports elsewhere: the old attempt's secret is void.
      await store.restartExecution(T, run.id, '1', { signalPath: '/s/1.second' });
      expect(await store.getReport(run.id, '1', '/s/1.second')).toBeNull();
      expect(await store.recordReport(run.id, '1', '/s/1.first', '{"status":"DONE"}')).toBe(false);
      expect(await store.recordReport(run.id, '1', '/s/1.second', '{"status":"DONE"}')).toBe(true);
      await store.finishRun(T, run.id, ended('failed', 'stopped'));
      expect(await store.recordReport(run.id, '1', '/s/1.second', '{"status":"LATE"}')).toBe(false);
      expect(await store.getReport(run.id, '1', '/s/1.second')).toBe('{"status":"DONE"}');
    });

    it('a waiting call takes reports only while a person holds its session; a report from before the hold is cleared', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1', { signalPath: '/s/1.a' }));
      expect(await store.recordReport(run.id, '1', '/s/1.a', '{"status":"DONE","summary":"sneaked in"}')).toBe(true);
      await store.markWaiting(T, run.id, '1', { waitingFor: 'Which database?', awaiting: 'input' }, 'waiting_human');
      expect(await store.recordReport(run.id, '1', '/s/1.a', '{"status":"DONE"}')).toBe(false);
      await store.holdSession(
        run.id,
        '1',
        { token: 'hold-1', by: 'ann', host: 'h', pid: 7, pidStart: null },
        { ask: 1, staleHold: null },
      );
      expect(await store.getReport(run.id, '1', '/s/1.a')).toBeNull();
      expect(await store.recordReport(run.id, '1', '/s/1.a', '{"status":"DONE","summary":"postgres"}')).toBe(true);
      await store.releaseSession(run.id, '1', 'hold-1');
      expect(await store.getReport(run.id, '1', '/s/1.a')).toBe('{"status":"DONE","summary":"postgres"}');
      expect(await store.recordReport(run.id, '1', '/s/1.a', '{"status":"DONE","summary":"after"}')).toBe(false);
    });
  });
}
