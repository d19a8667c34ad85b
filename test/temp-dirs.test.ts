import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/**
 * `npm test` left ~220 shop-* folders (82 MB) in the system temp dir: engine flows, stores
 * and test projects that nothing removed. A representative slice of the suite — scripted
 * engine flows (newFlow), a store in a temp folder (tempDir), the built shop binary driving
 * the stand-in Claude in a test project (makeProject) — run with a temp dir of its own, must
 * leave it empty.
 */
it('a representative run of tests leaves nothing in the temp dir', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'shop-temp-check-'));
  try {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !k.startsWith('VITEST') && !['NODE_OPTIONS', 'FORCE_COLOR'].includes(k),
      ),
    );
    const files = [
      'packages/core/src/operations/dry-replay.test.ts',
      'packages/core/src/store/sqlite/claims.test.ts',
      'test/e2e/run-smalls.test.ts',
    ];
    const r = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files, '-t', 'dryReplay|schema 6|micro-dollar'],
      {
        cwd: root,
        env: { ...env, TMPDIR: tmp, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/Tests +5 passed/);
    expect(readdirSync(tmp)).toEqual([]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}, 150_000);
