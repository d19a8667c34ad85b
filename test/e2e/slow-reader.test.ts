import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, shopBin } from './harness.js';

afterEach(killLeftovers);

describe('a slow reader of shop output', () => {
  it("gets all of it and the command's own exit code: a run's 72 KB of output read 2 s late still exits 4 (stuck)", () => {
    const p = makeProject();
    p.write(
      'workflows/chatty.lua',
      'function workflow(p)\n  for i = 1, 1000 do log(string.rep("x", 60) .. " " .. i) end\n  stuck("done logging")\nend\n',
    );
    // More than a pipe holds (64 KB), and a reader that starts late: the last lines wait in shop's
    // own buffer when the run has ended. It used to wait for a 'drain' that never came and end
    // on its own with 0 — a stuck run (or one waiting, 3) reported as done.
    const r = spawnSync(
      'bash',
      ['-c', `"${process.execPath}" "${shopBin}" run chatty | (sleep 2; wc -l); exit \${PIPESTATUS[0]}`],
      { cwd: p.dir, env: p.env, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(4);
    // Every line arrived: the run's first, 1,000 log lines, and the stuck line.
    expect(Number(r.stdout.trim())).toBe(1002);
  });
});
