import { existsSync, readdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId } from './harness.js';

describe('feature.lua when a person turns the coder down', () => {
  it('stops the run (stuck, naming it) instead of going on to review and deploy', () => {
    const p = makeProject();
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which DB?' }] } });
    const id = runId(p.shop(['run', 'feature', 'add login']));
    const r = p.shop(['reject', String(id), 'not this feature']);
    expect(r.code).toBe(4);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: expect.stringMatching(/^the coder stopped: REJECTED/) });
    expect(p.invocations().map((i) => i.agent)).toEqual(['architect', 'coder']);
  });
});

describe('a store lost beside earlier runs', () => {
  it('an empty shop.db with run folders beside it is refused (exit 1, what to do); nothing is mixed into the old folders', () => {
    const p = makeProject();
    const first = runId(p.shop(['run', 'bugfix', 'x']));
    const logs = readdirSync(join(p.dir, '.shop', 'runs', String(first))).sort();
    truncateSync(join(p.dir, '.shop', 'shop.db'), 0);
    for (const args of [['list'], ['run', 'bugfix', 'y']]) {
      const r = p.shop(args);
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toEqual([
        `shop: the store ${join(p.dir, '.shop', 'shop.db')} is empty but ${join(p.dir, '.shop', 'runs')} holds the files of 1 earlier run: the store was lost or cut short; restore it from a backup, or start afresh by moving the old files aside (mv ${join(p.dir, '.shop', 'runs')} ${join(p.dir, '.shop', 'runs')}.old)`,
      ]);
    }
    expect(readdirSync(join(p.dir, '.shop', 'runs', String(first))).sort()).toEqual(logs);
    expect(existsSync(join(p.dir, '.shop', 'shop.db-wal'))).toBe(false);
  });
});
