import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunFilter } from '@shop/core';
import { RunCache } from '../data/run-cache.js';
import { renderTui } from '../test-utils/render.js';
import { testOps, testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

/** 10,000 ended runs of 4 calls each, written in one transaction (as many runs as years of use). */
function seed(file: string, t: number) {
  const db = new Database(file);
  const run =
    db.prepare(`INSERT INTO runs (spec, workflow_path, prompt, status, workspace, seed, created_at, updated_at, ended_at, result)
    VALUES (@spec, 'w.lua', 'p', 'completed', '/w', 1, @t, @t, @t, '"ok"')`);
  const exec =
    db.prepare(`INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, cost_usd, started_at, updated_at)
    VALUES (?, ?, ?, 'run', 'coder', 'f', 'completed', 0.01, ?, ?)`);
  db.transaction(() => {
    for (let i = 1; i <= 10_000; i++) {
      const id = Number(run.run({ spec: `spec-${i}`, t: t - (10_000 - i) * 1000 }).lastInsertRowid);
      for (let k = 1; k <= 4; k++) exec.run(id, String(k), k, t, t);
    }
  })();
  db.close();
}

const ms = (since: number) => Math.round(performance.now() - since);

describe('10,000 runs', () => {
  it('stays responsive: only the window is drawn, a look at the store reads only what changed', async () => {
    w = testWorld();
    seed(join(w.dir, 'shop.db'), w.world.clock.t);

    let at = performance.now();
    const t = renderTui(w, { rows: 30 });
    await t.ready();
    const firstFrame = ms(at);
    expect(t.lines().filter((l) => /^[› ] \d/.test(l))).toHaveLength(24);
    expect(t.lines()[0]).toBe('Shop runs — 10000 runs · 1/10000');

    at = performance.now();
    await t.press('j');
    await t.until(() => expect(t.lines()[3]).toMatch(/^› 9999 /));
    const move = ms(at);

    at = performance.now();
    await t.press('/', '7', '7', '7');
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 19 of 10000 runs'));
    const filter = ms(at);

    // What each look reads from the store: all at first, then only the runs changed lately.
    const read: number[] = [];
    const store = w.world.ports.store;
    const cache = new RunCache(
      testOps(w, {
        ...w.world.ports,
        store: Object.assign(Object.create(store) as typeof store, {
          listRuns: async (f?: RunFilter) => {
            const rows = await store.listRuns(f);
            read.push(rows.length);
            return rows;
          },
        }),
      }),
    );
    at = performance.now();
    await cache.refresh();
    const fullLook = ms(at);
    at = performance.now();
    for (let i = 0; i < 10; i++) await cache.refresh();
    const changedLook = ms(at) / 10;
    expect(read[0]).toBe(10_000);
    // The newest run and the one changed within the 2 s margin before it (one a second here).
    expect(read.slice(1)).toEqual(Array(10).fill(2));
    expect(cache.runs).toHaveLength(10_000);

    // Timings are for reading, not asserted (npm run bench holds the timing goals).
    console.log(
      `10,000 runs: first frame ${firstFrame} ms, a key ${move} ms, a 3-key filter ${filter} ms, full look ${fullLook} ms, a look for changes ${changedLook} ms`,
    );
  });
});
