import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

const HOSTILE = '\u001b]0;pwned\u0007\u001b[2Jwhich db?\r\u001b[K\u009b31m';

/** Every .tsx file of the browser but the wrapper itself. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'tests' || name === 'test-utils' ? [] : sources(path);
    return path.endsWith('.tsx') && !path.endsWith('components/Text.tsx') ? [path] : [];
  });
}

describe('text from agents and workflows on the run browser', () => {
  it('shows control characters and escape sequences escaped in the list, the inbox and the detail', async () => {
    w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: HOSTILE }] });
    await w.run('run("coder")');
    await w.run(`pause("\\27[2Jclear?")`);
    const t = renderTui(w, { rows: 24 });
    await t.ready();
    const shown = '\\x1b]0;pwned\\x07\\x1b[2Jwhich db?\\r\\x1b[K\\u009b31m';
    // The list cuts the question to its column; the inbox and the detail show more of it.
    await t.waitFor('\\x1b[2Jclear?');
    await t.press('i');
    await t.waitFor('Inbox');
    await t.press(KEYS.esc);
    await t.press(KEYS.down, KEYS.enter);
    const detail = await t.waitFor(`Reason: coder asks (input): ${shown}`);
    for (const frame of [detail, t.frame()]) {
      expect(frame).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
  });

  it('every component takes Text from the inert wrapper, not from ink', () => {
    const offenders = sources(join(import.meta.dirname, '..')).filter((f) =>
      /import \{[^}]*\bText\b[^}]*\} from 'ink'/.test(readFileSync(f, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
