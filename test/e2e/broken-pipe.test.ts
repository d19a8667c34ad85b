import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { makeProject, shopBin } from './harness.js';

/** A reader that goes away (`shop … | head -1`) must not crash a command mid-way. */
describe('stdout closed early', () => {
  it('shop run | true: no stack trace, the run still reaches its wait (not left interrupted)', () => {
    const p = makeProject();
    p.write('workflows/ask.lua', 'function workflow(p) local r = run("coder", "task") return r.status end\n');
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] } });
    // `true` exits at once without reading: every write shop makes meets a closed pipe.
    const r = spawnSync(
      'bash',
      ['-c', `'${process.execPath}' '${shopBin}' run ask | true; echo "exit \${PIPESTATUS[0]}"`],
      { cwd: p.dir, env: p.env, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('exit 3\n');
    expect(p.list()).toEqual([expect.objectContaining({ status: 'waiting_human', waiting_for: 'Which database?' })]);
    expect(p.invocations()).toHaveLength(1);
  });
});
