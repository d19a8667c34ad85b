import { join } from 'node:path';
import type { RunWithWaiting } from '@shop/core';
import { openSqliteStore } from '@shop/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

describe('live refresh', () => {
  it('shows what another process writes without a keypress, reading only the runs that changed', async () => {
    w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
    for (let i = 0; i < 5; i++) await w.run('return "done"');
    const listRuns = vi.spyOn(w.store, 'listRuns');
    const t = renderTui(w, { rows: 14 });
    await t.ready();
    expect(t.lines()[0]).toBe('Shop runs — 5 runs');

    // Another process, its own connection to the store: a new run, then that run ended.
    w.later(10);
    const other = openSqliteStore(join(w.dir, 'shop.db'), () => w.world.clock.t);
    const owner = { token: 'elsewhere', host: 'test-host', pid: process.pid, pidStart: null };
    const run = await other.createRun({
      spec: 'deploy',
      workflowPath: 'w.lua',
      workflowHash: null,
      prompt: 'p',
      workspace: w.dir,
      branch: null,
      seed: 1,
      owner,
      leaseMs: 30_000,
      actor: 'bob',
    });
    await t.until(() => expect(t.lines()[2]).toMatch(/^› 6 +deploy +● running +- +- /));
    await other.finishRun('elsewhere', run.id, {
      status: 'failed',
      reason: 'it broke',
      event: { type: 'run_failed', actor: 'shop', channel: 'engine' },
    });
    await t.until(() => expect(t.lines()[2]).toMatch(/^› 6 +deploy +✗ failed +- +it broke/));
    await other.close();

    // The first look read every run; each later one only what changed since (and a margin).
    expect(listRuns.mock.calls[0]).toEqual([{}]);
    expect(listRuns.mock.calls.slice(1).every(([filter]) => typeof filter?.changedSince === 'number')).toBe(true);
    const last = (await listRuns.mock.results.at(-1)!.value) as RunWithWaiting[];
    expect(last.map((r) => r.id)).toEqual([6]);
  });

  it('reads a run again before calling it interrupted: a driver renews its lease without touching the run', async () => {
    w = testWorld();
    const id = await w.working('coder', 'Bash npm test');
    const listRuns = vi.spyOn(w.store, 'listRuns');
    const t = renderTui(w, { rows: 8 });
    await t.ready();
    expect(t.lines()[2]).toMatch(/● running +coder +Bash npm test/);
    w.later(40); // past the lease the list read
    await w.store.renewLease(id, (await w.store.getRun(id))!.owner!.token, 30_000);
    // Two more looks begin: the first of them whole (any read again included) before the second, its outcome on screen.
    const looks = listRuns.mock.calls.length;
    await t.until(() => expect(listRuns.mock.calls.length).toBeGreaterThanOrEqual(looks + 2));
    expect(t.lines()[2]).toMatch(/● running +coder +Bash npm test/);
    w.later(40); // and now the driver is gone
    await t.until(() => expect(t.lines()[2]).toMatch(/⚠ interrupted +coder +its driver is gone/));
  });
});
