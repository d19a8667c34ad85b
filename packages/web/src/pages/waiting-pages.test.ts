import { RunDetailJsonSchema } from '@shop/core';
import { agentAsk, executionJson, fakeRun, liveLook, runJson } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { runPage } from './run.js';
import { runsPage } from './runs.js';

const NOW = Date.UTC(2026, 10, 28, 9, 0, 0);
const view = { me: 'ann', csrf: 'tok-1', flash: null, now: NOW };
const DUE = NOW + 10 * 60_000;

/** Run 7, asleep on call 1 until ten minutes from now: no ask open. */
function sleeping() {
  const run = fakeRun({ status: 'waiting' });
  const nap = agentAsk({
    key: '1',
    seq: 1,
    kind: 'sleep',
    agent: null,
    status: 'waiting',
    waitKind: 'timer',
    waitUntil: DUE,
    waitingFor: null,
    awaiting: null,
    fingerprint: 'sleep()',
    request: { type: 'sleep', seconds: 600, due_at: DUE },
    sessionId: null,
  });
  return { run, nap };
}

describe('a run waiting on the world (not on a person) on the web pages', () => {
  it('runs: a "waiting on" badge and what it waits on; the filter offers it', () => {
    const { run, nap } = sleeping();
    const t = runsPage(view, { rows: [runJson(run, liveLook(run), null, 0, null, [nap])], total: 1, status: null }).body
      .text;
    expect(t).toContain('<span class="badge s-waiting">waiting on</span>');
    expect(t).toMatch(/<span class="doing">waits on timer until [^<]+<\/span>/);
    expect(t).toContain('href="/runs?status=waiting"');
  });

  it('run: a Waiting on card with each wait and its time; no ask to answer', () => {
    const { run, nap } = sleeping();
    const d = RunDetailJsonSchema.parse({
      ...runJson(run, liveLook(run), null, 0, null, [nap]),
      calls: 1,
      executions: [executionJson(nap)],
      pending: null,
      asks: [],
    });
    expect(d.waiting_on).toEqual([{ kind: 'timer', key: '1', until: new Date(DUE).toISOString() }]);
    const t = runPage(view, d, []).body.text;
    expect(t).toContain('<h2>Waiting on</h2>');
    expect(t).toMatch(/timer until [^<]+ — no person is needed: <code>shop watch<\/code> resumes it then\./);
    expect(t).toMatch(/<li><b>1<\/b> timer until <time datetime="2026-11-28T09:10:00.000Z"/);
    expect(t).not.toContain('Waiting for a person');
  });
});
