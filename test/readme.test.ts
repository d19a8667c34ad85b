import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAgent } from '../packages/core/src/agents/agent-def.js';
import { checkWorkflow } from '../packages/core/src/lua/check-workflow.js';
import { tempDir } from '../packages/core/src/testing/temp-dir.js';
import { codeBlocks, root, userDocs, type Block } from './docs-markdown.js';

/**
 * The examples of the README and of the guides in docs/. A code block that says it is a
 * shipped file — the paragraph just before names it, e.g. "`workflows/feature.lua` (created
 * by `shop init`):" — shows that file as it is; one that says "excerpt" shows lines of it, in
 * order ("…" lines stand for what is left out). Every Lua example compiles, every JSON one
 * parses, every agent file parses as Shop reads agents, and the fixture example passes.
 */
const blocks = userDocs().flatMap((d) => codeBlocks(d.text).map((b) => ({ ...b, at: `${d.path}:${b.line}` })));

/** The repository file a block claims to be: a backticked path in the paragraph before it, ending with ":". */
function claimed(b: Block): string | null {
  if (!b.intro.trimEnd().endsWith(':')) return null;
  for (const m of b.intro.matchAll(/`([\w./-]+\.(?:lua|md|json|sql|mjs|ts))`/g))
    if (existsSync(join(root, m[1]))) return m[1];
  return null;
}

describe('README and docs/ examples', () => {
  const shipped = blocks
    .map((b) => ({ ...b, file: claimed(b) }))
    .filter((b): b is typeof b & { file: string } => b.file !== null);

  it('finds the blocks that claim to be files (feature.lua among them)', () => {
    expect(shipped.map((b) => b.file)).toContain('workflows/feature.lua');
  });

  it('shows each such file exactly as shipped, or marks it an excerpt whose lines are in the file in order', () => {
    for (const b of shipped) {
      const file = readFileSync(join(root, b.file), 'utf8');
      if (!/excerpt/i.test(b.intro)) {
        expect(b.code, `${b.at} shows ${b.file}; it differs from the file (copy it, or call it an excerpt)`).toBe(file);
        continue;
      }
      const fileLines = file.split('\n').map((l) => l.trim());
      let at = 0;
      for (const line of b.code
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && l !== '…')) {
        const found = fileLines.indexOf(line, at);
        expect(found, `${b.at}: "${line}" is not in ${b.file} (after the lines before it)`).toBeGreaterThanOrEqual(0);
        at = found + 1;
      }
    }
  });

  it('a block naming no file, or a file that does not exist, claims nothing', () => {
    const fake = codeBlocks(
      'Here is `workflows/nope.lua`:\n\n```lua\nx\n```\n\nSee `workflows/feature.lua`.\n```lua\ny\n```\n',
    );
    expect(fake.map(claimed)).toEqual([null, null]);
    expect(claimed(codeBlocks('`workflows/feature.lua` (created by shop init):\n```lua\nz\n```\n')[0])).toBe(
      'workflows/feature.lua',
    );
  });

  it('reads a block inside a list item without its indentation', () => {
    expect(codeBlocks('- an item:\n\n  ```json\n  { "a": 1 }\n  ```\n')).toEqual([
      { intro: '- an item:', lang: 'json', code: '{ "a": 1 }\n', line: 3 },
    ]);
  });

  it('every Lua example compiles (a fragment as the body of workflow())', () => {
    const lua = blocks.filter((b) => b.lang === 'lua');
    expect(lua.length).toBeGreaterThanOrEqual(10);
    for (const b of lua) expect(() => checkWorkflow(`function workflow()\n${b.code}\nend\n`, b.at), b.at).not.toThrow();
    expect(() => checkWorkflow('function workflow()\nlocal x = \nend\n', 'bad.lua')).toThrow(/bad.lua:3/);
  });

  it('every JSON example parses, and every agent file example parses as Shop reads agents', () => {
    const json = blocks.filter((b) => b.lang === 'json');
    expect(json.length).toBeGreaterThanOrEqual(2);
    for (const b of json) expect(() => JSON.parse(b.code), b.at).not.toThrow();
    const agents = blocks.filter((b) => b.lang === 'markdown' && b.code.startsWith('---\n'));
    expect(agents.length).toBeGreaterThanOrEqual(4);
    for (const b of agents) expect(() => parseAgent('example', b.at, b.code), b.at).not.toThrow();
    expect(() => parseAgent('example', 'bad.md', '---\ngates: ["Bash npm test"]\n---\n')).toThrow(
      /must look like Tool/,
    );
  });

  it("the fixture example of 'Testing a workflow' passes as printed: shop test feature --fixture <it>", () => {
    const fixture = blocks.find((b) => b.intro.includes('The fixture is'));
    expect(fixture, 'the fixture example').toBeDefined();
    const dir = tempDir('shop-readme-');
    try {
      const file = join(dir, 'example.json');
      writeFileSync(file, fixture!.code);
      const r = spawnSync(
        process.execPath,
        [join(root, 'packages', 'cli', 'bin', 'shop'), 'test', 'feature', '--fixture', file],
        { cwd: root, encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      expect(r.stdout.trim().split('\n').at(-1)).toBe('✓ pass');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
