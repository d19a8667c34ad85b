import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../packages/core/src/testing/temp-dir.js';

/**
 * README code blocks that say they are a shipped file — the paragraph just before names it,
 * e.g. "`workflows/feature.lua` (created by `shop init`):" — show that file as it is. One
 * that says "excerpt" shows lines of it, in order ("…" lines stand for what is left out).
 */
const root = join(import.meta.dirname, '..');

interface Block {
  intro: string;
  code: string;
  line: number;
}

export function codeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('```')) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith('```')) end++;
    // The paragraph before the fence (up to a blank line).
    let p = start - 1;
    while (p >= 0 && lines[p].trim() === '') p--;
    let q = p;
    while (q > 0 && lines[q - 1].trim() !== '') q--;
    blocks.push({ intro: lines.slice(q, p + 1).join('\n'), code: `${lines.slice(start + 1, end).join('\n')}\n`, line: start + 1 });
    i = end;
  }
  return blocks;
}

/** The repository file a block claims to be: a backticked path in the paragraph before it, ending with ":". */
function claimed(b: Block): string | null {
  if (!b.intro.trimEnd().endsWith(':')) return null;
  for (const m of b.intro.matchAll(/`([\w./-]+\.(?:lua|md|json|sql|mjs|ts))`/g)) if (existsSync(join(root, m[1]))) return m[1];
  return null;
}

describe('README examples', () => {
  const blocks = codeBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
  const shipped = blocks.map((b) => ({ ...b, file: claimed(b) })).filter((b): b is Block & { file: string } => b.file !== null);

  it('finds the blocks that claim to be files (feature.lua among them)', () => {
    expect(shipped.map((b) => b.file)).toContain('workflows/feature.lua');
  });

  it('shows each such file exactly as shipped, or marks it an excerpt whose lines are in the file in order', () => {
    for (const b of shipped) {
      const file = readFileSync(join(root, b.file), 'utf8');
      if (!/excerpt/i.test(b.intro)) {
        expect(b.code, `README.md:${b.line} shows ${b.file}; it differs from the file (copy it, or call it an excerpt)`).toBe(file);
        continue;
      }
      const fileLines = file.split('\n').map((l) => l.trim());
      let at = 0;
      for (const line of b.code.split('\n').map((l) => l.trim()).filter((l) => l && l !== '…')) {
        const found = fileLines.indexOf(line, at);
        expect(found, `README.md:${b.line}: "${line}" is not in ${b.file} (after the lines before it)`).toBeGreaterThanOrEqual(0);
        at = found + 1;
      }
    }
  });

  it('a block naming no file, or a file that does not exist, claims nothing', () => {
    const fake = codeBlocks('Here is `workflows/nope.lua`:\n\n```lua\nx\n```\n\nSee `workflows/feature.lua`.\n```lua\ny\n```\n');
    expect(fake.map(claimed)).toEqual([null, null]);
    expect(claimed(codeBlocks('`workflows/feature.lua` (created by shop init):\n```lua\nz\n```\n')[0])).toBe('workflows/feature.lua');
  });

  it("the fixture example of 'Testing a workflow' passes as printed: shop test feature --fixture <it>", () => {
    const section = readFileSync(join(root, 'README.md'), 'utf8').split('## Testing a workflow')[1];
    const fixture = codeBlocks(section).find((b) => b.intro.includes('The fixture is'));
    expect(fixture, 'the fixture example').toBeDefined();
    const dir = tempDir('shop-readme-');
    try {
      const file = join(dir, 'example.json');
      writeFileSync(file, fixture!.code);
      const r = spawnSync(process.execPath, [join(root, 'packages', 'cli', 'bin', 'shop'), 'test', 'feature', '--fixture', file], { cwd: root, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim().split('\n').at(-1)).toBe('✓ pass');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('links only to files inside the repository, and docs/architecture.md names only files that exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/\]\(\.\.\/|`\.\.\/shared/);
    for (const [, target] of readme.matchAll(/\]\(([^)#\s]+)\)/g)) if (!/^https?:/.test(target)) expect(existsSync(join(root, target)), target).toBe(true);
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    const bases = ['', 'packages/core/src', 'packages/cli/src', 'packages/tui/src', 'packages/web/src', 'packages'];
    const named = [...doc.matchAll(/`([\w./-]+\.(?:ts|tsx|sql|lua))`/g)].map((m) => m[1].replace(/^(cli|tui|web)\/src\//, 'packages/$1/src/'));
    expect(named.length).toBeGreaterThan(30);
    for (const file of named) expect(bases.some((b) => existsSync(join(root, b, file))), `docs/architecture.md names ${file}`).toBe(true);
  });
});
