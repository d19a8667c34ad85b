import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedAgentLoader } from './agent-cache.js';
import { tempDir } from '../testing/temp-dir.js';

describe('cachedAgentLoader', () => {
  it('reads a definition once, again when its file changes, and follows a file that moves or is shadowed', () => {
    const root = tempDir('shop-agents-');
    mkdirSync(join(root, 'agents'));
    mkdirSync(join(root, '.claude', 'agents'), { recursive: true });
    const own = join(root, 'agents', 'coder.md');
    const claude = join(root, '.claude', 'agents', 'coder.md');
    writeFileSync(claude, '---\nmodel: haiku\n---\nFrom .claude.\n');
    const load = cachedAgentLoader(root);
    const first = load('coder');
    expect(first).toMatchObject({ file: claude, model: 'haiku' });
    expect(load('coder')).toBe(first);
    // agents/ comes first: once it has the file, it wins.
    writeFileSync(own, '---\nmodel: sonnet\n---\nOurs.\n');
    expect(load('coder')).toMatchObject({ file: own, model: 'sonnet', instructions: 'Ours.' });
    // An edit (same size, new time) is read again.
    writeFileSync(own, '---\nmodel: sonnex\n---\nOurs.\n');
    utimesSync(own, new Date(), new Date(Date.now() + 5000));
    expect(load('coder')).toMatchObject({ model: 'sonnex' });
    rmSync(own);
    expect(load('coder')).toMatchObject({ file: claude });
    rmSync(claude);
    expect(() => load('coder')).toThrow(/unknown agent "coder"/);
  });
});
