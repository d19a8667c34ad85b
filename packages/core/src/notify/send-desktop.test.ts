import { describe, expect, it } from 'vitest';
import type { AskNotice } from './ask-notice.js';
import { sendNotice, type NoticeDeps } from './send.js';

const notice: AskNotice = {
  event: 'waiting',
  run: 3,
  spec: 'feature',
  call: '1/2/1',
  ask: 1,
  handle: '3.1/2/1',
  awaiting: 'approval',
  agent: 'planner',
  question: '-rf everything?\nReally?',
  answer_with: ['shop approve 3.1/2/1'],
  answer_url: null,
  waited_seconds: 12,
  project: '/home/me/p',
  at: '2025-01-02T03:04:05+01:00',
};

/** Fakes for every port; `notifySend` says where notify-send is, `exit` what it exits with. */
function fakes(notifySend: string | null, exit = 0) {
  const notes: string[] = [];
  const runs: { argv: string[]; env: Record<string, string>; timeoutMs: number }[] = [];
  const deps: NoticeDeps = {
    fetch: () => Promise.reject(new Error('no network in this test')),
    which: (p) => (p === 'notify-send' ? notifySend : null),
    runCommand: async (argv, env, timeoutMs) => {
      runs.push({ argv, env, timeoutMs });
      return { code: exit, stderr: exit === 0 ? '' : 'Cannot autolaunch D-Bus without X11 $DISPLAY\n' };
    },
    note: (line) => void notes.push(line),
    sleep: async () => undefined,
  };
  return { deps, notes, runs };
}

describe('desktop notifier', () => {
  it('without notify-send, writes one line for the person at the terminal', async () => {
    const { deps, notes, runs } = fakes(null);
    expect(await sendNotice({ kind: 'desktop' }, notice, deps)).toEqual({ ok: true, target: 'desktop' });
    expect(notes).toEqual(['shop: run 3 (feature) waits for you: -rf everything? Really? — shop approve 3.1/2/1']);
    expect(runs).toEqual([]);
  });

  it('with notify-send, runs it with a title and the question and answer as body', async () => {
    const { deps, notes, runs } = fakes('/usr/bin/notify-send');
    expect(await sendNotice({ kind: 'desktop' }, notice, deps)).toEqual({ ok: true, target: 'desktop' });
    expect(runs).toEqual([
      {
        argv: [
          '/usr/bin/notify-send',
          '--',
          'Shop: run 3 waits for you',
          '-rf everything? Really?\nshop approve 3.1/2/1',
        ],
        env: {},
        timeoutMs: 5000,
      },
    ]);
    expect(notes).toEqual([]);
  });

  it('says how long a reminder has waited', async () => {
    const { deps, runs } = fakes('/usr/bin/notify-send');
    await sendNotice(
      { kind: 'desktop' },
      { ...notice, event: 'reminder', waited_seconds: 1800, answer_with: [] },
      deps,
    );
    expect(runs[0]!.argv.slice(2)).toEqual(['Shop: run 3 still waits for you (30 min)', '-rf everything? Really?']);
  });

  it('when notify-send fails (no session bus), notes the line and reports the failure', async () => {
    const { deps, notes } = fakes('/usr/bin/notify-send', 1);
    expect(await sendNotice({ kind: 'desktop' }, notice, deps)).toEqual({
      ok: false,
      target: 'desktop',
      error:
        'desktop: /usr/bin/notify-send exited with code 1: Cannot autolaunch D-Bus without X11 $DISPLAY; the notice went to stderr instead',
    });
    expect(notes).toHaveLength(1);
  });
});
