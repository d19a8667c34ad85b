import type { RunWithWaiting } from '@shop/core';
import { agentAsk, fakeRun } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { callSummary } from './exec-tree.js';
import { callTime, statusText } from './run-detail.js';
import { runActivity } from './run-row.js';
import { runLook } from './status.js';

const NOW = Date.UTC(2026, 10, 28, 9, 0, 0);
const DUE = NOW + 90_000;
const nap = agentAsk({
  key: '3',
  kind: 'sleep',
  agent: null,
  status: 'waiting',
  waitKind: 'timer',
  waitUntil: DUE,
  waitingFor: null,
  awaiting: null,
});

describe('the TUI on a run waiting on the world (no person asked)', () => {
  it('the list: its own look (not the attention of an ask), the sleep and until when', () => {
    expect(runLook('waiting')).toEqual({ icon: '◷', word: 'waiting on', tone: 'muted' });
    const run: RunWithWaiting = {
      ...fakeRun({ status: 'waiting' }),
      waiting: null,
      waitsOn: [nap],
      running: null,
      costUsd: 0,
    };
    expect(runActivity(run, 'waiting')).toEqual({
      agent: 'sleep',
      what: expect.stringMatching(/^timer until (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d [+-]\d\d:\d\d$/),
    });
  });

  it('the detail: the status says on what and that no person is needed; the call row counts down to its due time', () => {
    const view = {
      run: fakeRun({ status: 'waiting' }),
      executions: [nap],
      waiting: null,
      waitingAll: [],
    } as unknown as Parameters<typeof statusText>[0];
    expect(statusText(view, 'waiting')).toMatch(
      /^waiting on timer until .+ \(no person needed; shop watch resumes it\)$/,
    );
    expect(callTime(nap, NOW)).toBe('due in 1m 30s');
    expect(callTime(nap, DUE + 1)).toBe('due');
    expect(callSummary(nap)).toMatch(/^timer until /);
  });
});
