import Database from 'better-sqlite3';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lines, makeProject, runId, shopBin, type Project } from './harness.js';
import { Terminal } from './terminal.js';

/** What `shop` does on a real terminal (tmux): tables fit the window, colour, 50 runs by default. */
const shop = (args: string, prefix = '') => `${prefix}'${process.execPath}' '${shopBin}' ${args}`;

/** Runs `command` in a tmux window `width` columns wide; its screen once it exited (with colours as escapes if asked). */
async function onTerminal(p: Project, command: string, width = 160, escapes = false): Promise<string> {
  const term = new Terminal(p, command, width);
  try {
    await term.waitFor(/\[exit \d+\]/);
    return term.screen(escapes);
  } finally {
    term.kill();
  }
}

const QUESTION = `Which of the three database layouts in docs/schema.md should the login page use, and who owns the migration?`;

let p: Project;
let waiting: number;
beforeAll(() => {
  p = makeProject();
  p.write('workflows/ask.lua', 'function workflow(prompt)\n  return run("coder", prompt).summary\nend\n');
  p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: QUESTION }] } });
  waiting = runId(p.shop(['run', 'ask', 'add a login page']));
});

describe('tables on a terminal', () => {
  it('fit the window: the free-text column is cut with …, no line wraps', async () => {
    for (const args of ['list', 'inbox', `status ${waiting}`]) {
      const screen = await onTerminal(p, shop(args), 70);
      // The table (status prints prose above its table; prose wraps like any text).
      const all = lines(screen).filter((l) => !l.startsWith('[exit'));
      const shown = all.slice(
        Math.max(
          0,
          all.findIndex((l) => /^(ID|RUN|CALL) /.test(l)),
        ),
      );
      expect(shown.length, args).toBeGreaterThan(1);
      for (const line of shown) expect(line.length, `${args}: ${line}`).toBeLessThanOrEqual(70);
      expect(screen, args).toContain('…');
      expect(screen, args).toContain('[exit 0]');
    }
    // The same command on a pipe keeps the whole question.
    expect(p.shop(['list']).stdout).toContain(QUESTION.slice(0, 90));
  });

  it('colour status words, unless NO_COLOR is set', async () => {
    const coloured = await onTerminal(p, shop('list'), 160, true);
    expect(coloured).toMatch(/\x1b\[33mwaiting_human/);
    const plain = await onTerminal(p, shop('list', 'NO_COLOR=1 '), 160, true);
    expect(plain).toContain('waiting_human');
    expect(plain).not.toMatch(/\x1b\[3\dm/);
  });
});

describe('shop list --limit on a terminal', () => {
  it('shows the newest 50 by default and says how many more there are; --json shows all', async () => {
    const q = makeProject();
    const db = new Database(join(q.dir, '.shop', 'shop.db'));
    const insert =
      db.prepare(`INSERT INTO runs (spec, workflow_path, prompt, status, workspace, seed, created_at, updated_at, ended_at)
      VALUES ('quick', 'workflows/quick.lua', '', 'completed', ?, 1, ?, ?, ?)`);
    for (let i = 0; i < 53; i++) insert.run(q.dir, Date.now() - 1000 * (60 - i), Date.now(), Date.now());
    db.close();
    const screen = await onTerminal(q, shop('list'));
    const rows = lines(screen).filter((l) => /^\d+ +quick /.test(l));
    expect(rows).toHaveLength(50);
    expect(rows[0]).toMatch(/^53 /);
    expect(rows[49]).toMatch(/^4 /);
    expect(screen).toContain('… 3 more (shop list --limit 0 for all)');
    const all = await onTerminal(q, shop('list --limit 0'));
    expect(lines(all).filter((l) => /^\d+ +quick /.test(l))).toHaveLength(53);
    expect(q.list()).toHaveLength(53);
  });
});

describe('shop status on a terminal', () => {
  it('shows the latest 50 calls and every open one, and says how many earlier ones it left out', async () => {
    const q = makeProject();
    // Call 1 is the parallel, 1/1/1 a pause that waits, 1/2/1 … 1/2/60 sixty recorded now() calls.
    q.write(
      'workflows/long.lua',
      'function workflow(prompt)\n  parallel(function() return pause("Hold on?").continue end, function() for i = 1, 60 do now() end end)\n  return "done"\nend\n',
    );
    const id = runId(q.shop(['run', 'long']));
    const screen = await onTerminal(q, shop(`status ${id}`));
    const rows = lines(screen)
      .filter((l) => l.startsWith('#'))
      .map((l) => l.split(/\s+/)[0]);
    expect(rows).toEqual(['#1', '#1/1/1', ...Array.from({ length: 50 }, (_, i) => `#1/2/${i + 11}`)]);
    expect(screen).toContain(`… 10 earlier calls (shop status ${id} --limit 0 for all)`);
  });
});
