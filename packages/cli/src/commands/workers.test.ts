import { describe, expect, it } from 'vitest';
import type { WorkersJson } from '@shop/core';
import { leavesLine } from './workers.js';

type Worker = WorkersJson[number];

describe('shop workers: a run a worker leaves to others', () => {
  const worker = { host: 'machine-b', pid: 42 } as Worker;

  it('says which worker leaves which run and why', () => {
    const left = { run: 7, workflow: 'deploy', reason: 'this checkout has no workflows/deploy.lua' };
    expect(leavesLine(worker, left)).toBe(
      'machine-b (pid 42) leaves run 7 (deploy) to others: this checkout has no workflows/deploy.lua',
    );
  });

  it("shows control characters in another machine's host name and a run's paths escaped, not obeyed", () => {
    const hostile = { ...worker, host: 'b\x1b]0;pwned\x07' } as Worker;
    const left = { run: 7, workflow: 'deploy', reason: 'its workspace /w/x\x1b[2J\ny is not in this checkout' };
    const line = leavesLine(hostile, left);
    expect(line).toBe(
      'b\\x1b]0;pwned\\x07 (pid 42) leaves run 7 (deploy) to others: its workspace /w/x\\x1b[2J\\ny is not in this checkout',
    );
    expect(line).not.toMatch(/[\x00-\x1f]/);
  });
});
