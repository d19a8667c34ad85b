import { afterEach, describe, expect, it } from 'vitest';
import { lines, makeProject, runId, shopBin, until, type Background, type Project } from './harness.js';
import { Terminal } from './terminal.js';

/** Small defects of `shop run` and the engine (issue 14, Why 12), each through the binary. */

describe('costs are summed to the micro-dollar', () => {
  it('three calls of $0.0125 cost $0.0375 in status, list and log --json — not 0.037500000000000006', () => {
    const p = makeProject();
    p.write(
      'workflows/three.lua',
      'function workflow(p)\n  run("coder", "a")\n  run("coder", "b")\n  run("coder", "c")\n  return "ok"\nend\n',
    );
    p.scenario({ agents: { coder: [{ status: 'DONE', cost: 0.0125 }] } });
    const r = p.shop(['run', 'three', 'x']);
    expect(r.code).toBe(0);
    const id = runId(r);
    const status = p.shop(['status', String(id), '--json']);
    expect(status.stdout).toContain('"cost_usd": 0.0375');
    expect(status.stdout).not.toMatch(/0\.03750000000/);
    expect(p.status(id).cost_usd).toBe(0.0375);
    expect(p.list().find((x) => x.id === id)?.cost_usd).toBe(0.0375);
    expect(JSON.parse(p.shop(['log', String(id), '--json']).stdout).run.cost_usd).toBe(0.0375);
  });
});

describe("a run's agent is one thing in list, status and log --json", () => {
  /** The `agent` each read command gives run `id`. */
  const agents = (p: Project, id: number) => ({
    list: p.list().find((r) => r.id === id)?.agent,
    status: p.status(id).agent,
    log: JSON.parse(p.shop(['log', String(id), '--json']).stdout).run.agent,
  });

  it('the agent it is on now — at work, or asked by — and none once it has ended (status said the last one)', async () => {
    const p = makeProject();
    p.write(
      'workflows/two.lua',
      'function workflow(p)\n  run("architect", "plan")\n  return run("coder", "build").status\nend\n',
    );
    p.scenario({
      agents: {
        architect: [{ status: 'DONE' }],
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which DB?' },
          { status: 'DONE', sleep_ms: 2_000 },
        ],
      },
    });
    const id = runId(p.shop(['run', 'two', 'x']));
    expect(agents(p, id)).toEqual({ list: 'coder', status: 'coder', log: 'coder' });
    const answering = p.spawnShop(['answer', `${id}.2`, 'postgres']);
    await until('the coder at work again', () => p.list().find((r) => r.id === id)?.activity);
    expect(agents(p, id)).toEqual({ list: 'coder', status: 'coder', log: 'coder' });
    expect(await answering.exited).toBe(0);
    expect(p.status(id).status).toBe('completed');
    expect(agents(p, id)).toEqual({ list: null, status: null, log: null });
  });
});

describe('Ctrl-C of shop run on a terminal', () => {
  it('prints "shop: run N interrupted" at the start of its line', async () => {
    const p = makeProject();
    p.scenario({ agents: { coder: [{ status: 'DONE', sleep_ms: 30_000 }] } });
    const term = new Terminal(p, `'${process.execPath}' '${shopBin}' run bugfix x`);
    try {
      await term.waitFor(/\[1\] coder \d+s/);
      term.keys('C-c');
      const screen = await term.waitFor(/\[exit \d+\]/);
      const line = lines(screen).find((l) => l.includes('interrupted;'));
      expect(line).toMatch(/^shop: run \d+ interrupted; its agents were stopped; pick it up with: shop resume \d+$/);
      expect(screen).toContain('[exit 130]');
    } finally {
      term.kill();
    }
  });
});

describe('shop watch <id>…', () => {
  const watchers: Background[] = [];
  const watch = (p: Project, ids: number[]) => {
    const w = p.spawnShop(['watch', ...ids.map(String)]);
    watchers.push(w);
    return w;
  };
  afterEach(async () => {
    for (const w of watchers.splice(0)) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill('SIGKILL');
        await w.exited;
      }
    }
  });

  it('exits once every named run has ended: 0 when all completed', async () => {
    const p = makeProject();
    const id = runId(p.shop(['run', 'feature', 'x']));
    const w = watch(p, [id]);
    await until('the run to be held', () => w.output().includes(`run ${id} (feature): held here`));
    expect(p.shop(['approve', String(id)]).code).toBe(0);
    expect(await w.exited).toBe(0);
    expect(lines(w.output()).slice(-2)).toEqual([
      expect.stringMatching(new RegExp(`^run ${id} \\(feature\\) completed: `)),
      `shop watch: every run watched has ended (${id} completed)`,
    ]);
  });

  it('exits with the state of a run that did not complete (4 stuck); a run already ended exits at once', async () => {
    const p = makeProject();
    const done = runId(p.shop(['run', 'feature', 'x']));
    const waiting = runId(p.shop(['run', 'feature', 'y']));
    expect(p.shop(['approve', String(done)]).code).toBe(0);
    const w = watch(p, [done, waiting]);
    await until('the run to be held', () => w.output().includes(`run ${waiting} (feature): held here`));
    expect(p.shop(['stop', String(waiting), '--reason', 'enough']).code).toBe(0);
    expect(await w.exited).toBe(4);
    expect(lines(w.output()).at(-1)).toBe(
      `shop watch: every run watched has ended (${done} completed, ${waiting} stuck)`,
    );

    expect(p.shop(['watch', String(done)]).code).toBe(0);
    const r = p.shop(['watch', '999']);
    expect(r.code).toBe(5);
    expect(lines(r.stderr)).toEqual(['shop: no run 999; see runs with: shop list']);
  });
});
