import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, shopBin } from './harness.js';
import { Terminal } from './terminal.js';

/** Small defects of `shop run` and the engine (issue 14, Why 12), each through the binary. */

describe('costs are summed to the micro-dollar', () => {
  it('three calls of $0.0125 cost $0.0375 in status, list and log --json — not 0.037500000000000006', () => {
    const p = makeProject();
    p.write('workflows/three.lua', 'function workflow(p)\n  run("coder", "a")\n  run("coder", "b")\n  run("coder", "c")\n  return "ok"\nend\n');
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
