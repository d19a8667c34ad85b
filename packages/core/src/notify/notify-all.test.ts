import { describe, expect, it } from 'vitest';
import type { AskNotice } from './ask-notice.js';
import type { NoticeDeps } from './notice-deps.js';
import { notifyAll } from './notify-all.js';

const notice: AskNotice = {
  event: 'waiting',
  run: 3,
  spec: 'feature',
  call: '1',
  ask: 1,
  handle: '3.1',
  awaiting: 'input',
  agent: 'coder',
  question: 'Which?',
  answer_with: ['shop answer 3.1 "…"'],
  answer_url: null,
  waited_seconds: 0,
  project: '/p',
  at: '2025-01-02T03:04:05+01:00',
};

describe('notifyAll', () => {
  it('sends to all at once and returns results in entry order; a bad entry is a failed result', async () => {
    const order: string[] = [];
    let release!: () => void;
    const slowWebhook = new Promise<void>((r) => (release = r));
    const deps: NoticeDeps = {
      // The webhook answers only after the command has run: a sequential notifyAll would hang here.
      fetch: async () => {
        await slowWebhook;
        order.push('webhook');
        return new Response(null, { status: 200 });
      },
      which: (p) => (p === 'my-notifier' ? '/bin/my-notifier' : null),
      runCommand: async (argv) => {
        order.push(`command ${argv.join(' ')}`);
        release();
        return { code: 0, stderr: '' };
      },
      note: (line) => void order.push(`note ${line}`),
      sleep: async () => undefined,
    };
    const results = await notifyAll(
      [
        'webhook:https://hooks.example.com/x/S3CRET',
        'smtp:https://mail.example.com/S3CRET',
        'command:my-notifier --urgent',
        'desktop',
      ],
      notice,
      deps,
    );
    expect(results).toEqual([
      { ok: true, target: 'webhook:https://hooks.example.com/…' },
      {
        ok: false,
        target: 'smtp:https://mail.example.com/…',
        error:
          'notify: "smtp:https://mail.example.com/…" is not a notifier (use desktop, webhook:<url>, slack:<url>, command:<argv…>)',
      },
      { ok: true, target: 'command:my-notifier' },
      { ok: true, target: 'desktop' },
    ]);
    expect(order).toEqual([
      'command my-notifier --urgent',
      'note shop: run 3 (feature) waits for you: Which? — shop answer 3.1 "…"',
      'webhook',
    ]);
    expect(JSON.stringify(results)).not.toContain('S3CRET');
  });

  it('returns nothing for no targets', async () => {
    const never = () => {
      throw new Error('not called');
    };
    expect(
      await notifyAll([], notice, { fetch: never, which: never, runCommand: never, note: never, sleep: never }),
    ).toEqual([]);
  });
});
