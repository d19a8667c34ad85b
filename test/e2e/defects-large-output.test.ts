import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, shopBin, type Project } from './harness.js';

/**
 * Regression tests (Engine v2): an agent that cannot start because its command line is too
 * long fails with a short message; `shop … --json` through a pipe is never cut short.
 */

describe('an agent whose command line is too long (E2BIG)', () => {
  const TOO_LONG =
    'is 10,485,760 bytes, over the 131,071 Linux takes in one command-line argument (MAX_ARG_STRLEN), so Claude Code was not started; put the long text in a file in the workspace and give the agent its path';

  it('fails the run with one short line naming the prompt, its size, the bound and what to do; the agent is never started', () => {
    const p = makeProject();
    p.write(
      'workflows/big.lua',
      'function workflow(prompt)\n  return run("coder", string.rep("x", 10 * 1024 * 1024)).status\nend\n',
    );
    const r = p.shop(['run', 'big']);
    const id = runId(r);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([`shop: run ${id} failed: the prompt to coder ${TOO_LONG}`]);
    const s = p.status(id);
    expect(s.status).toBe('failed');
    expect(s.reason).toBe(`the prompt to coder ${TOO_LONG}`);
    expect(s.executions).toHaveLength(1);
    expect(s.executions[0]).toMatchObject({
      agent: 'coder',
      status: 'failed',
      error: `the prompt to coder ${TOO_LONG}`,
    });
    expect(p.invocations()).toHaveLength(0);
  });

  it('shop run --prompt-file with a prompt over 128 KiB handed to an agent: the same one line, a failed execution, no stack trace', () => {
    const p = makeProject();
    p.write('workflows/one.lua', 'function workflow(prompt)\n  return run("coder", prompt).status\nend\n');
    p.write('big.txt', 'y'.repeat(200_000));
    const r = p.shop(['run', 'one', '--prompt-file', 'big.txt']);
    const id = runId(r);
    expect([r.code, r.stderr]).toEqual([
      1,
      `shop: run ${id} failed: the prompt to coder is 200,000 bytes, over the 131,071 Linux takes in one command-line argument (MAX_ARG_STRLEN), so Claude Code was not started; put the long text in a file in the workspace and give the agent its path\n`,
    ]);
    expect(p.status(id).executions).toMatchObject([{ key: '1', agent: 'coder', status: 'failed' }]);
    expect(p.invocations()).toHaveLength(0);
  });
});

describe('shop list --json through a pipe', () => {
  const RUNS = 2_000;

  /** Inserts `n` completed runs straight into the store (columns the schema has had from v1). */
  function bulkRuns(p: Project, n: number) {
    expect(p.list()).toEqual([]); // opens (creates) the store
    const db = new Database(join(p.dir, '.shop', 'shop.db'));
    try {
      const insert = db.prepare(
        `INSERT INTO runs (spec, workflow_path, prompt, status, workspace, result, seed, created_at, updated_at, ended_at)
         VALUES ('bugfix', @path, @prompt, 'completed', @dir, @result, @seed, @t, @t, @t)`,
      );
      const t = Date.now();
      db.transaction(() => {
        for (let i = 1; i <= n; i++) {
          insert.run({
            path: join(p.dir, 'workflows', 'bugfix.lua'),
            prompt: `bulk run ${i}: fix the flaky login test`,
            dir: p.dir,
            result: JSON.stringify({ fixed: true, summary: `fixed it, take ${i}` }),
            seed: i,
            t: t + i,
          });
        }
      })();
    } finally {
      db.close();
    }
  }

  /** `shop list --json` under sh, its stdout going on to `rest` (a pipe or a file). */
  function listJson(p: Project, rest: string): string {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${shopBin}" list --json ${rest}`], {
      cwd: p.dir,
      env: p.env,
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 << 20,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  }

  it(`is complete: ${RUNS} runs, as many bytes as written to a file`, () => {
    const p = makeProject();
    bulkRuns(p, RUNS);
    listJson(p, '> list.json');
    const whole = readFileSync(join(p.dir, 'list.json'));
    expect(whole.length).toBeGreaterThan(4 * 65_536);
    expect(RunJsonSchema.array().parse(JSON.parse(whole.toString('utf8')))).toHaveLength(RUNS);

    expect(Number(listJson(p, '| wc -c').trim())).toBe(whole.length);
    const piped = listJson(p, '| cat');
    expect(Buffer.byteLength(piped)).toBe(whole.length);
    const runs = RunJsonSchema.array().parse(JSON.parse(piped));
    expect(runs).toHaveLength(RUNS);
    expect(new Set(runs.map((r) => r.id)).size).toBe(RUNS);
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
  });
});
