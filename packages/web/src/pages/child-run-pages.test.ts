import { RunDetailJsonSchema } from '@shop/core';
import { fakeRun, runJson, shown } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { runPage } from './run.js';

const view = { me: 'ann', csrf: 'tok-1', flash: null, now: Date.UTC(2026, 10, 28, 9, 0, 0) };

describe('runs calling runs on the run page', () => {
  it('a child links to its parent; a parent lists its children with their states', () => {
    const child = RunDetailJsonSchema.parse({
      ...runJson(...shown(fakeRun({ id: 8, spec: 'bugfix', parentId: 7, parentKey: '2' })), null, 0),
      calls: 0,
      executions: [],
      pending: null,
      asks: [],
    });
    expect(runPage(view, child, []).body.text).toContain(
      '<p class="family">A child of <a class="run-link" href="/runs/7">run 7</a>',
    );
    const parent = RunDetailJsonSchema.parse({
      ...runJson(...shown(fakeRun({ id: 7, status: 'waiting' })), null, 0),
      calls: 2,
      executions: [],
      pending: null,
      asks: [],
      children: [{ id: 8, spec: 'bugfix', key: '2', status: 'waiting_human', reason: null }],
    });
    const t = runPage(view, parent, []).body.text;
    expect(t).toMatch(
      /<p class="family">Children: <a class="run-link" href="\/runs\/8">run 8<\/a> <span class="spec">bugfix<\/span> <span class="badge s-waiting_human">/,
    );
    expect(t).not.toContain('A child of');
  });
});
