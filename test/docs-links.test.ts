import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, links, root, slug, userDocs } from './docs-markdown.js';

/**
 * The docs hold together: every relative link in the README and docs/ points at a file of
 * the repository (and at a heading there, when it names one); the architecture pages name
 * only files that exist; the CLI reference has a row for every command `shop help` lists.
 */
const docs = userDocs();

/** "docs/cli.md:12 → web.md#nope: …" for each link that does not resolve. */
function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const doc of docs) {
    for (const { target, line } of links(doc.text)) {
      if (/^(https?|mailto):/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const path = file === '' ? doc.path : relative(root, join(root, dirname(doc.path), file));
      const where = `${doc.path}:${line} → ${target}`;
      if (path.startsWith('..')) broken.push(`${where}: outside the repository`);
      else if (!existsSync(join(root, path))) broken.push(`${where}: no such file`);
      else if (
        anchor !== undefined &&
        !(path.endsWith('.md') && anchors(readFileSync(join(root, path), 'utf8')).has(anchor))
      )
        broken.push(`${where}: no such heading`);
    }
  }
  return broken;
}

describe('the docs hold together', () => {
  it('makes anchors as GitHub does', () => {
    expect(slug('The run browser: `shop tui`')).toBe('the-run-browser-shop-tui');
    expect(slug('Signal protocol (agent → Shop)')).toBe('signal-protocol-agent--shop');
    expect(slug('Claiming an ask: "I\'m on it"')).toBe('claiming-an-ask-im-on-it');
    expect(slug('auto_approve and budgets')).toBe('auto_approve-and-budgets');
    expect([...anchors('# A\n```sh\n# not a heading\n```\n## B b\n## B b\n')]).toEqual(['a', 'b-b', 'b-b-1']);
  });

  it('every relative link in README.md and docs/ resolves, to a heading when it names one', () => {
    expect(docs.map((d) => d.path)).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/cli.md', 'docs/workflows.md']),
    );
    expect(docs.flatMap((d) => links(d.text)).length).toBeGreaterThan(40);
    expect(brokenLinks()).toEqual([]);
  });

  it('the README links to every guide in docs/', () => {
    const readme = docs.find((d) => d.path === 'README.md')!.text;
    const linked = new Set(links(readme).map((l) => l.target.split('#')[0]));
    for (const d of docs.filter((d) => d.path.startsWith('docs/'))) expect(linked, d.path).toContain(d.path);
  });

  it('the README stays a front door: a few hundred lines, the two commands on its first screen', () => {
    const readme = docs.find((d) => d.path === 'README.md')!.text;
    expect(readme.split('\n').length).toBeLessThan(300);
    const first = readme.split('\n').slice(0, 20).join('\n');
    expect(first).toContain('npm install && npm run demo');
    expect(first).toContain('npm test ');
  });

  it('docs/architecture.md and docs/internals.md name only files that exist', () => {
    const bases = ['', 'packages/core/src', 'packages/cli/src', 'packages/tui/src', 'packages/web/src', 'packages'];
    let count = 0;
    for (const page of ['docs/architecture.md', 'docs/internals.md']) {
      const doc = readFileSync(join(root, page), 'utf8');
      const named = [...doc.matchAll(/`([\w./-]+\.(?:ts|tsx|sql|lua))`/g)].map((m) =>
        m[1].replace(/^(cli|tui|web)\/src\//, 'packages/$1/src/'),
      );
      count += named.length;
      for (const file of named)
        expect(
          bases.some((b) => existsSync(join(root, b, file)) && statSync(join(root, b, file)).isFile()),
          `${page} names ${file}`,
        ).toBe(true);
    }
    expect(count).toBeGreaterThan(200);
  });

  it('docs/cli.md has a row for every command shop help lists, and names no other', () => {
    const help = spawnSync(process.execPath, [join(root, 'packages', 'cli', 'bin', 'shop'), 'help'], {
      encoding: 'utf8',
    });
    expect(help.status).toBe(0);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z]+) {2,}\S/gm)].map((m) => m[1]);
    expect(commands).toEqual(expect.arrayContaining(['run', 'approve', 'serve', 'report']));
    const rows = readFileSync(join(root, 'docs', 'cli.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| `shop'));
    const documented = new Set(
      rows.flatMap((r) => [...r.split(' | ')[0].matchAll(/`shop ([a-z]+)/g)].map((m) => m[1])),
    );
    for (const c of commands) expect(documented, `docs/cli.md has no row for shop ${c}`).toContain(c);
    for (const c of documented)
      expect([...commands, 'help'], `docs/cli.md documents shop ${c}, which shop help does not list`).toContain(c);
  });
});
