import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.js';
import { CheckoutCheck } from './checkout-check.js';

describe('CheckoutCheck: what this checkout can drive', () => {
  const root = tempDir('shop-checkout-check-');
  mkdirSync(join(root, 'workflows'));
  writeFileSync(join(root, 'workflows', 'build.lua'), 'function workflow() end');
  const shown = (p: string) => p.slice(root.length + 1) || '.';
  const run = (id: number, spec: string, workspace = root) => ({
    id,
    spec,
    workflowPath: join(root, 'workflows', `${spec}.lua`),
    workspace,
  });

  it('says why a run is left (no workflow file, no workspace), once while the reason holds, and forgets it after a while', () => {
    let t = 0;
    const check = new CheckoutCheck(() => t, shown, 10_000);
    const heard: string[] = [];
    const hear = (l: { runId: number; reason: string }) => heard.push(`${l.runId}: ${l.reason}`);
    expect(check.why(run(1, 'build'), hear)).toBeNull();
    expect(check.why(run(2, 'deploy'), hear)).toBe('this checkout has no workflows/deploy.lua');
    expect(check.why(run(2, 'deploy'), hear)).toBe('this checkout has no workflows/deploy.lua');
    const worktree = join(root, '.shop', 'worktrees', 'run-3');
    expect(check.why(run(3, 'build', worktree), hear)).toBe(
      'its workspace .shop/worktrees/run-3 is not in this checkout',
    );
    expect(heard).toEqual([
      '2: this checkout has no workflows/deploy.lua',
      '3: its workspace .shop/worktrees/run-3 is not in this checkout',
    ]);
    expect(check.left().map((l) => l.runId)).toEqual([3, 2]);
    check.forget(3);
    t += 10_001;
    expect(check.left()).toEqual([]);
  });

  it('takes a run again once its checkout has the file (looked at again after a few seconds)', () => {
    let t = 0;
    const check = new CheckoutCheck(() => t, shown, 60_000);
    expect(check.why(run(4, 'later'))).not.toBeNull();
    writeFileSync(join(root, 'workflows', 'later.lua'), 'function workflow() end');
    expect(check.why(run(4, 'later'))).not.toBeNull();
    t += 5_000;
    expect(check.why(run(4, 'later'))).toBeNull();
    expect(check.left()).toEqual([]);
  });
});
