import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reading the user docs (README.md and docs/*.md) the way the docs tests check them. */
export const root = join(import.meta.dirname, '..');

export interface Doc {
  /** Relative to the repository root: README.md, docs/cli.md … */
  path: string;
  text: string;
}

/** The README and every guide in docs/. */
export function userDocs(): Doc[] {
  const guides = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  return ['README.md', ...guides.map((f) => `docs/${f}`)].map((path) => ({
    path,
    text: readFileSync(join(root, path), 'utf8'),
  }));
}

export interface Block {
  /** The paragraph just before the fence (up to a blank line). */
  intro: string;
  /** The fence's info string: lua, json, sh … ('' when none). */
  lang: string;
  code: string;
  /** The fence's line, 1-based. */
  line: number;
}

/**
 * The fenced code blocks of a markdown text. A fence may be indented (a block inside a list
 * item): its lines lose that indentation.
 */
export function codeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\S*)/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith('```')) end++;
    let p = start - 1;
    while (p >= 0 && lines[p].trim() === '') p--;
    let q = p;
    while (q > 0 && lines[q - 1].trim() !== '') q--;
    const code = lines.slice(start + 1, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
    blocks.push({
      intro: lines.slice(q, p + 1).join('\n'),
      lang: open[2],
      code: `${code.join('\n')}\n`,
      line: start + 1,
    });
    i = end;
  }
  return blocks;
}

/** The text outside fenced code blocks (each block's lines blanked, so line numbers hold). */
export function prose(markdown: string): string {
  let inside = false;
  return markdown
    .split('\n')
    .map((l) => {
      if (l.trimStart().startsWith('```')) {
        inside = !inside;
        return '';
      }
      return inside ? '' : l;
    })
    .join('\n');
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown text's headings give (a repeated heading gets -1, -2 …). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of a text's markdown links, with their line, outside code blocks and code spans. */
export function links(markdown: string): { target: string; line: number }[] {
  return prose(markdown)
    .split('\n')
    .flatMap((l, i) =>
      [...l.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ target: m[1], line: i + 1 })),
    );
}
