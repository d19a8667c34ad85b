import type { Liveness, RunFilter, RunWithWaiting } from '@shop/core';
import { fakeRun } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { RunCache } from './run-cache.js';

/** A store of runs read as listRuns does (changedSince: updated after it), on a clock the test sets. */
function store() {
  const clock = { t: 10_000 };
  const rows: RunWithWaiting[] = [];
  const liveness: Liveness = {
    self: { host: 'h', pid: 1, pidStart: 's' },
    processAlive: () => true,
    clock: { now: () => clock.t },
  };
  const ops = {
    liveness,
    listRuns: async (f: RunFilter = {}) =>
      rows.filter((r) => f.changedSince === undefined || r.updatedAt > f.changedSince),
    run: async (id: number) => rows.find((r) => r.id === id) ?? null,
  };
  const write = (id: number) =>
    rows.push({ ...fakeRun({ id, updatedAt: clock.t }), waiting: null, waitsOn: [], running: null, costUsd: 0 });
  return { clock, write, cache: new RunCache(ops) };
}

describe('RunCache', () => {
  it('reads only what changed since its last look', async () => {
    const { clock, write, cache } = store();
    write(1);
    expect(await cache.refresh()).toBe(true);
    expect(await cache.refresh()).toBe(false);
    clock.t += 5_000;
    write(2);
    expect(await cache.refresh()).toBe(true);
    expect(cache.runs.map((r) => r.id)).toEqual([2, 1]);
  });

  it('still sees a run written after the store clock was set back (a fast-forward undone)', async () => {
    const { clock, write, cache } = store();
    write(1);
    await cache.refresh();
    clock.t -= 5_000;
    write(2);
    expect(await cache.refresh()).toBe(true);
    expect(cache.get(2)?.id).toBe(2);
  });
});
