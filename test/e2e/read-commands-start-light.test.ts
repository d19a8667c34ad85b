import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, runId, startWorker, until } from './harness.js';
import { packagesLoaded } from './loaded-packages.js';

/**
 * A read (shop list, status, inbox) starts without loading the engine: since the CLI goes
 * through core's operations, these commands read the Lua VM, zod, yaml and chokidar at start-up
 * and shop list on 100,000 runs took 2.6 times a bare node + SQLite query (bench P4) instead of 1.5.
 */

afterEach(killLeftovers);

/** Packages only driving a run (or checking signed tokens) needs. */
const HEAVY = ['fengari', 'zod', 'yaml', 'chokidar'];
/** Shop's modules for driving and changing runs: the engine's ports, the operations over them. */
const ENGINE = ['core/engine/node-ports', 'core/operations/shop-operations'];

describe('read commands start light', () => {
  it('shop list, status and inbox load no engine; shop run does; list, inbox, log and workers only the reads', () => {
    const p = makeProject();
    p.write('workflows/gate.lua', 'function workflow(prompt)\n  return pause("Ship it?").continue\nend\n');
    const run = packagesLoaded(p, ['run', 'gate']);
    expect(run.code).toBe(3);
    // The hook sees the bundle's chunks: driving a run reads the Lua VM.
    expect([...run.packages]).toContain('fengari');
    // On SQLite, PostgreSQL's driver is never loaded (open-store imports it only for a database URL).
    expect([...run.packages]).toContain('better-sqlite3');
    expect([...run.packages]).not.toContain('pg');
    // A run driven to a pause keeps no agent's transcript and has not run long enough to look at
    // the heap: Node's zlib and v8 are required when first needed (~3 ms each to load).
    expect(['zlib', 'v8'].filter((m) => run.builtins.has(m))).toEqual([]);
    const id = String(runId(run.stdout));
    for (const args of [['list'], ['status', id], ['inbox'], ['list', '--json']]) {
      const read = packagesLoaded(p, args);
      expect(read.code, args.join(' ')).toBe(0);
      expect(
        HEAVY.filter((name) => read.packages.has(name)),
        `shop ${args.join(' ')}`,
      ).toEqual([]);
      expect(read.packages.has('pg'), `shop ${args.join(' ')} loads pg`).toBe(false);
    }
    // The reads alone: neither the engine's ports nor the operations that change runs are loaded.
    for (const args of [['list'], ['inbox'], ['log', id], ['workers'], ['list', '--json']]) {
      const read = packagesLoaded(p, args);
      expect(read.code, args.join(' ')).toBe(0);
      expect(read.modules.has('core/store/sqlite/sqlite-store'), `shop ${args.join(' ')} reads the store`).toBe(true);
      expect(
        ENGINE.filter((m) => read.modules.has(m)),
        `shop ${args.join(' ')}`,
      ).toEqual([]);
      // In a few files: each ES module file costs its start-up ~0.4 ms (scripts/bundle-chunks.mjs; 53 before).
      expect(read.files.size, `shop ${args.join(' ')}: ${[...read.files].join(' ')}`).toBeLessThanOrEqual(10);
      // Node's heavier modules a read never uses (colour's mark, a project's first id, agents' processes).
      expect(
        ['crypto', 'child_process'].filter((m) => read.builtins.has(m)),
        `shop ${args.join(' ')}`,
      ).toEqual([]);
    }
    // A command that never reaches the store neither opens it nor loads the operations.
    const help = packagesLoaded(p, ['list', '--help']);
    expect(help.code).toBe(0);
    const opened = ['core/store/open-store', 'core/store/sqlite/sqlite-store', 'core/operations/read-operations'];
    expect([...opened, ...ENGINE].filter((m) => help.modules.has(m))).toEqual([]);
  });

  it('shop approve of a run a worker holds loads no Lua VM: the worker drives it', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', 'function workflow(prompt)\n  return pause("Ship it?").continue\nend\n');
    const ran = p.shop(['run', 'gate']);
    expect(ran.code).toBe(3);
    const id = runId(ran.stdout);
    const worker = await startWorker(p);
    await until('the worker to hold the run', () => worker.output().includes(`run ${id} (gate): held here`));
    const approve = packagesLoaded(p, ['approve', String(id)]);
    expect(approve.code, approve.stdout).toBe(0);
    expect(approve.stdout).toContain('it picks up the answer itself');
    // zod checks the answer against the ask; the VM, agents' YAML and the file watcher stay unread.
    expect(HEAVY.filter((name) => approve.packages.has(name))).toEqual(['zod']);
    await until('the worker to complete the run', () => worker.output().includes(`run ${id} (gate) completed`));
  });
});
