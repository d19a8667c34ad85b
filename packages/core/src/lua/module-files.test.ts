import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODULE_FILE_BYTES } from './lua-modules.js';
import { projectModules } from './module-files.js';

function project() {
  const root = mkdtempSync(join(tmpdir(), 'shop-modules-'));
  mkdirSync(join(root, 'workflows', 'lib', 'git'), { recursive: true });
  const write = (rel: string, text: string | Buffer) => writeFileSync(join(root, 'workflows', 'lib', rel), text);
  return { root, write, modules: projectModules(root) };
}

describe('modules on disk (workflows/lib)', () => {
  it('reads <dots as folders>.lua, shown from the project root', () => {
    const { write, modules } = project();
    write('git/helpers.lua', 'return 1\n');
    expect(modules.read('git.helpers')).toEqual({ file: 'workflows/lib/git/helpers.lua', source: 'return 1\n' });
  });

  it('a missing file (or a file where a folder should be) says which file was looked for', () => {
    const { write, modules } = project();
    write('flat.lua', 'return 1');
    expect(modules.read('git.nope')).toEqual({
      problem: 'no module file workflows/lib/git/nope.lua (create it, or fix the name)',
    });
    expect(modules.read('flat.x')).toEqual({
      problem: 'no module file workflows/lib/flat/x.lua (create it, or fix the name)',
    });
  });

  it('a file over the bound is refused with its size, never read whole; a folder or a FIFO is not a module (never blocks)', () => {
    const { root, write, modules } = project();
    write('big.lua', Buffer.alloc(MODULE_FILE_BYTES + 1, 0x20));
    expect(modules.read('big')).toEqual({
      problem:
        'workflows/lib/big.lua is 1,048,577 bytes, over the 1 MiB (1,048,576 bytes) a module may be; split it into smaller modules',
    });
    mkdirSync(join(root, 'workflows', 'lib', 'dir.lua'));
    expect(modules.read('dir')).toEqual({ problem: 'workflows/lib/dir.lua is not a regular file' });
    execFileSync('mkfifo', [join(root, 'workflows', 'lib', 'pipe.lua')]);
    expect(modules.read('pipe')).toEqual({ problem: 'workflows/lib/pipe.lua is not a regular file' });
  });
});
