import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';
import { makeProject, runId } from './harness.js';

/** A person's own workflows in ~/.shop/workflows: found by name in any project; the project's own win. */
describe('workflows in ~/.shop/workflows', () => {
  it('runs one the project lacks; the project wins a name both have; an unknown name lists both', () => {
    const p = makeProject();
    const home = tempDir('shop-home-');
    const mine = join(home, '.shop', 'workflows');
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'nightly.lua'), 'function workflow(prompt)\n  return "mine: " .. prompt\nend\n');
    writeFileSync(join(mine, 'feature.lua'), 'function workflow(prompt)\n  return "not the project\'s"\nend\n');
    const env = { HOME: home };
    const nightly = p.shop(['run', 'nightly', 'x'], { env });
    expect([nightly.code, nightly.stderr]).toEqual([0, '']);
    expect(p.status(runId(nightly)).result).toBe('mine: x');
    expect(p.status(runId(nightly)).spec).toBe('nightly');
    // The project's feature.lua (shop init's) is the one run: it stops for a person (3); the other would complete (0).
    const feature = p.shop(['run', 'feature', 'y'], { env });
    expect([feature.code, feature.stdout]).toEqual([3, expect.not.stringContaining("not the project's")]);
    const unknown = p.shop(['run', 'nope'], { env });
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/\(found: bugfix, feature, review-parallel; in .*\.shop\/workflows: nightly\)\n$/);
    const queued = p.shop(['run', 'nightly', 'z', '--detach'], { env });
    expect(queued.stdout).toMatch(/^run \d+ queued \(nightly\)/);
  });
});
