import { describe, expect, it } from 'vitest';
import { ended, exec, newRun, T, useStore, type StoreAdapter } from './fixtures.js';

/**
 * A NUL in text handed to the store is kept as U+FFFD on every adapter (PostgreSQL's text
 * cannot hold NUL): in plain columns and inside JSON values and keys alike, so a read gives
 * the same text whichever store is behind (nul-free.ts).
 */
export function nulText(adapter: StoreAdapter) {
  describe('NUL in text', () => {
    const ctx = useStore(adapter);

    it('becomes U+FFFD in every column and every JSON value it is written to', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun({ prompt: 'add\u0000login' }));
      await store.startExecution(
        T,
        exec(run.id, '1', {
          kind: 'pause',
          agent: '_checkpoint',
          prompt: 'Ship\u0000it?',
          request: { message: 'Ship\u0000it?' },
          fingerprint: 'pause("Ship\u0000it?") #ab',
        }),
      );
      await store.setActivity(T, run.id, '1', { text: 'reading\u0000file' });
      await store.completeExecution(T, run.id, '1', { summary: 'done\u0000now', ['k\u0000ey']: ['a\u0000b'] });
      await store.appendEvent(T, run.id, {
        type: 'log',
        actor: 'workflow',
        channel: 'engine',
        data: { message: 'line\u0000one' },
      });
      await store.finishRun(T, run.id, { ...ended('stuck', 'held\u0000back'), result: 'r\u0000' });

      const got = await store.getRun(run.id);
      expect(got).toMatchObject({ prompt: 'add\uFFFDlogin', reason: 'held\uFFFDback', result: 'r\uFFFD' });
      const [call] = await store.loadExecutions(run.id);
      expect(call).toMatchObject({
        prompt: 'Ship\uFFFDit?',
        request: { message: 'Ship\uFFFDit?' },
        fingerprint: 'pause("Ship\uFFFDit?") #ab',
      });
      expect(call.result).toEqual({ summary: 'done\uFFFDnow', ['k\uFFFDey']: ['a\uFFFDb'] });
      expect((await store.listEvents(run.id)).find((e) => e.type === 'log')?.data).toEqual({
        message: 'line\uFFFDone',
      });
      expect(JSON.stringify([got, call, await store.listEvents(run.id)])).not.toContain('\\u0000');
    });
  });
}
