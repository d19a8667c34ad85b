import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { crossMachineOrphans, type Kill } from './chaos-actors.js';
import { callOverlaps, finishedRerun } from './chaos-scenario.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { overlaps, readSpans, stillRunning, type Span } from './spans.js';
import { standin } from './harness.js';
import { until } from '../../packages/core/src/testing/until.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/** The chaos test's judges, on made-up agent processes: each finds what it is there to find. */
const span = (o: Partial<Span> & { pid: number; start: number }): Span => ({
  shop_step: null,
  host: 'machine-a',
  session: 's1',
  run: '1',
  call: '2',
  mode: 'print',
  end: null,
  code: null,
  reports: [],
  reporting: [],
  presence: null,
  alongside: null,
  ...o,
});

describe('the chaos test judges', () => {
  it('callOverlaps: two processes alive at once on one call, on any machines; one after the other is fine', () => {
    const a = span({ pid: 10, start: 100, end: 200, code: 143 });
    expect(callOverlaps([a, span({ pid: 11, host: 'machine-b', start: 250, end: 300, code: 0 })])).toEqual([]);
    expect(callOverlaps([a, span({ pid: 11, host: 'machine-b', start: 150, end: 300, code: 0 })])).toHaveLength(1);
    expect(callOverlaps([span({ pid: 10, start: 100 }), span({ pid: 11, start: 150, end: 300 })])).toHaveLength(1);
  });

  it("callOverlaps: on one session the kernel's word on a process whose end was never logged; across sessions a missing end is alive", () => {
    const killed = span({ pid: 10, start: 100, presence: 'p10', alongside: [] });
    const next = (o: Partial<Span>) => span({ pid: 11, start: 150, end: 300, presence: 'p11', alongside: [], ...o });
    expect(callOverlaps([killed, next({})])).toEqual([]);
    expect(callOverlaps([killed, next({ alongside: ['p10'] })])).toHaveLength(1);
    expect(callOverlaps([killed, next({ session: 's2' })])).toHaveLength(1);
  });

  it('finishedRerun: a result reported twice, a process started after the result, or no result at all', () => {
    const calls = ['2', '3/1/1', '3/2/1', '5', '6'];
    const done = (call: string, pid: number, at: number, status = 'DONE') =>
      span({ pid, call, start: at - 50, end: at + 10, code: 0, reports: [{ status, at }] });
    const clean = [...calls.map((c, i) => done(c, 100 + i, 1000 + i * 100)), done('5', 200, 900, 'NEEDS_HUMAN')];
    expect(finishedRerun(clean, [1])).toEqual([]);
    expect(finishedRerun([...clean, span({ pid: 300, call: '2', start: 5000 })], [1])).toEqual([
      'run 1 call 2 (planner): machine-a:300 started after it had reported its result',
    ]);
    expect(finishedRerun([...clean, done('6', 301, 2000)], [1])).toHaveLength(2);
    expect(
      finishedRerun(
        clean.filter((s) => s.call !== '3/1/1'),
        [1],
      ),
    ).toEqual(['run 1 call 3/1/1 (coder): reported its result 0 times ()']);
    // Killed while reporting, the call completed on it: fine; a process started after it is not.
    const killed = span({
      pid: 400,
      call: '3/1/1',
      start: 900,
      end: 1000,
      code: 137,
      reporting: [{ status: 'DONE', at: 990 }],
    });
    expect(finishedRerun([...clean.filter((s) => s.call !== '3/1/1'), killed], [1])).toEqual([]);
    expect(
      finishedRerun(
        [...clean.filter((s) => s.call !== '3/1/1'), killed, span({ pid: 401, call: '3/1/1', start: 2000 })],
        [1],
      ),
    ).toHaveLength(1);
  });

  it('crossMachineOrphans: another machine took the run of a worker killed alone while its agent still ran', () => {
    const kill: Kill = { machine: 'a', how: 'worker', at: 1000, downMs: 0, runs: [1] };
    const orphan = span({ pid: 10, start: 900, end: 5000, code: 0 });
    const host = (m: string) => `machine-${m}`;
    expect(crossMachineOrphans([{ kill, run: 1, ms: 3000, by: 'b' }], [orphan], host)).toHaveLength(1);
    // Ended before the takeover; or taken back by its own machine (which can see and end it).
    expect(crossMachineOrphans([{ kill, run: 1, ms: 3500, by: 'b' }], [{ ...orphan, end: 2000 }], host)).toEqual([]);
    expect(crossMachineOrphans([{ kill, run: 1, ms: 1500, by: 'a' }], [orphan], host)).toEqual([]);
  });

  it('readSpans: a pid that comes back (pid_max wrapped) is a new process, not the old one', () => {
    const file = join(tempDir('shop-spans-'), 'spans.jsonl');
    const line = (o: Record<string, unknown>) =>
      JSON.stringify({ pid: 9, host: 'h', session_id: 's', run: '1', agent: 'a', mode: 'print', ...o });
    writeFileSync(
      file,
      [
        line({ event: 'start', call: '2', at: 1 }),
        line({ event: 'reported', call: '2', status: 'DONE', at: 2 }),
        line({ event: 'end', call: '2', at: 3, code: 0 }),
        line({ event: 'start', call: '6', at: 10 }),
        line({ event: 'end', call: '6', at: 11, code: 0 }),
      ].join('\n') + '\n',
    );
    expect(readSpans(file).map((s) => [s.call, s.reports.length, s.end])).toEqual([
      ['2', 1, 3],
      ['6', 0, 11],
    ]);
  });

  it("overlaps: the kernel's word on a process whose end was never logged (killed -9): alive beside the next, or gone before it", () => {
    const old = span({ pid: 2, start: 100, presence: 'p:a', alongside: [] });
    const next = span({ pid: 2, start: 200, end: 300, code: 0, presence: 'p:b', alongside: ['p:a'] });
    expect(overlaps([old, next])).toHaveLength(1);
    expect(overlaps([old, { ...next, alongside: [] }])).toEqual([]);
    // The later one took its presence first, so it saw nothing: the earlier one saw it.
    expect(
      overlaps([
        { ...old, alongside: ['p:b'] },
        { ...next, alongside: [] },
      ]),
    ).toHaveLength(1);
    // The kernel not asked (no presence): a missing end counts as alive; a logged end decides.
    expect(overlaps([old, { ...next, alongside: null }])).toHaveLength(1);
    expect(
      overlaps([
        { ...old, presence: null },
        { ...next, alongside: [] },
      ]),
    ).toHaveLength(1);
    expect(
      overlaps([
        { ...old, end: 250 },
        { ...next, alongside: [] },
      ]),
    ).toHaveLength(1);
    expect(
      overlaps([
        { ...old, end: 150 },
        { ...next, alongside: [] },
      ]),
    ).toEqual([]);
  });

  it('overlaps and stillRunning on real stand-ins: one alive beside the next is caught, one killed -9 before the next is not', async () => {
    const dir = tempDir('shop-presence-');
    const file = join(dir, 'spans.jsonl');
    writeFileSync(
      join(dir, 'scenario.json'),
      JSON.stringify({
        agents: { coder: [{ when_prompt: 'long', via: 'none', sleep_ms: 60_000 }] },
        default: { via: 'none', summary: 'done' },
      }),
    );
    const env = {
      PATH: process.env.PATH,
      SHOP_AGENT: 'coder',
      SHOP_RUN_ID: '1',
      SHOP_CALL: '2',
      SHOP_STANDIN_SPANS: file,
      SHOP_STANDIN_SCENARIO: join(dir, 'scenario.json'),
      CLAUDE_CONFIG_DIR: join(dir, 'claude'),
    };
    const args = (session: string, prompt: string) => [standin, '-p', '--session-id', session, prompt];
    const startedOn = (session: string) => readSpans(file).some((s) => s.session === session);
    const long = async (session: string) => {
      const child = spawn(process.execPath, args(session, 'long'), { cwd: dir, env, stdio: 'ignore' });
      await until('the long one to start', () => startedOn(session));
      return child;
    };
    const short = (session: string) => spawnSync(process.execPath, args(session, 'short'), { cwd: dir, env });
    const [beside, after] = [randomUUID(), randomUUID()];

    const alive = await long(beside);
    try {
      short(beside);
      const killed = await long(after);
      killed.kill('SIGKILL');
      await new Promise((r) => killed.once('exit', r));
      short(after);

      const spans = readSpans(file);
      expect(spans.map((s) => [s.session, s.end === null])).toEqual([
        [beside, true],
        [beside, false],
        [after, true],
        [after, false],
      ]);
      expect(overlaps(spans).map((o) => o.split(' ')[1])).toEqual([beside]);
      expect(stillRunning(spans).map((s) => s.session)).toEqual([beside]);
      alive.kill('SIGKILL');
      await new Promise((r) => alive.once('exit', r));
      expect(stillRunning(readSpans(file))).toEqual([]);
    } finally {
      alive.kill('SIGKILL');
    }
  });
});
