import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, runId, shopBin, until } from '../../../../test/e2e/harness.js';
import { Tmux } from '../test-utils/tmux.js';
import { CONFIRM_QUIET_MS } from '../overlays/ConfirmAction.js';

const shop = (args: string) => `'${process.execPath}' '${shopBin}' ${args}`;

/** The built `shop` in a real terminal (tmux), with the stand-in claude. */
describe('shop tui in a real terminal', () => {
  it("hands the terminal to the agent's Claude session and takes it back intact; the run resumes in the background", async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'fixed' },
        ],
      },
    });
    const id = runId(p.shop(['run', 'bugfix', 'x']));
    const term = new Tmux(p, shop('tui'));
    try {
      await term.waitFor(new RegExp(`› ${id} +bugfix +⏸ waiting +coder +Which database\\?`));
      term.keys('c');
      const chat = await term.waitFor(/^> ?$/m);
      expect(chat).toContain('Claude Code (stand-in) — resumed session');
      term.type('use postgres');
      await term.waitFor('reported DONE');
      term.type('/exit');
      const back = await term.waitFor(`coder reported DONE; run ${id} resumes in the background`);
      expect(back.split('\n')[0]).toMatch(/^Shop runs — 1 run/);
      expect(back).not.toContain('Claude Code (stand-in)');
      // The list follows the run, resumed by a `shop resume` that is not this process.
      await term.waitFor(new RegExp(`› ${id} +bugfix +✓ completed`));
      // The TUI has the keys again.
      term.keys('?');
      await term.waitFor('any key closes this');
      // Esc then q at once would read as Alt+q: let the Esc land first, as a person would.
      term.keys('Escape');
      await until('help closed', () => !term.screen().includes('any key closes this'));
      term.keys('q');
      expect(await term.waitFor('[exit ')).toContain('[exit 0]');
    } finally {
      term.kill();
    }
    expect(existsSync(join(p.dir, '.shop', 'runs', String(id), 'tui-resume.log'))).toBe(true);
    expect(p.status(id).status).toBe('completed');
    const chats = p.invocations().filter((i) => i.mode !== 'print');
    expect(chats[0]).toMatchObject({ mode: 'interactive', agent: 'coder', call: '1', run: String(id), cwd: p.dir });
  });

  it('approves and stops with text typed in; a run answered from another terminal shows without a keypress', async () => {
    const p = makeProject();
    p.write(
      'workflows/gate.lua',
      'function workflow(p) local r = pause("Ship " .. p .. "?") return r.status .. ":" .. (r.message or "") end\n',
    );
    const [a, b, c] = ['one', 'two', 'three'].map((what) => runId(p.shop(['run', 'gate', what])));
    const term = new Tmux(p, shop('tui'));
    try {
      await term.waitFor(new RegExp(`› ${c} +gate +⏸ waiting`));
      // Newest first: c is selected; j moves to b, then to a (each move seen before the next
      // key: keys typed at once are the ink-testing-library tests' part).
      term.keys('j');
      await term.waitFor(new RegExp(`› ${b} +gate`));
      term.keys('j');
      await term.waitFor(new RegExp(`› ${a} +gate`));
      term.keys('A');
      await term.waitFor(`Approve ask ${a}.1 — pause asks: Ship one?`);
      term.type('looks good');
      // The question before an answer takes a y typed after a pause only.
      await term.waitFor('[y] approve it (after a pause)');
      await new Promise((r) => setTimeout(r, CONFIRM_QUIET_MS + 100));
      term.keys('y');
      await term.waitFor(new RegExp(`${a} +gate +✓ completed`));
      expect(p.status(a)).toMatchObject({ status: 'completed', result: 'CONTINUE:looks good' });
      term.keys('k');
      await term.waitFor(new RegExp(`› ${b} +gate`));
      term.keys('s');
      await term.waitFor(`Stop run ${b}`);
      term.type('not this week');
      await term.waitFor('[y] stop it (after a pause)');
      await new Promise((r) => setTimeout(r, CONFIRM_QUIET_MS + 100));
      term.keys('y');
      await term.waitFor(`run ${b} stopped: stuck — not this week`);
      expect(p.status(b)).toMatchObject({ status: 'stuck', reason: 'not this week' });
      // Another terminal answers c; the screen follows with no key pressed.
      const before = term.screen();
      expect(before).toMatch(new RegExp(`${c} +gate +⏸ waiting`));
      expect(p.shop(['approve', String(c), '--message', 'from elsewhere']).code).toBe(0);
      await term.waitFor(new RegExp(`${c} +gate +✓ completed`));
      term.keys('q');
      expect(await term.waitFor('[exit ')).toContain('[exit 0]');
    } finally {
      term.kill();
    }
    expect(p.status(c)).toMatchObject({ status: 'completed', result: 'CONTINUE:from elsewhere' });
  });

  it("o hands the terminal to $EDITOR on the run's workspace: what is typed reaches the editor, and the browser comes back", async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', 'function workflow(p) return pause("Ship it?").status end\n');
    const id = runId(p.shop(['run', 'gate']));
    // An "editor" that says where it was opened, reads a line from the terminal and keeps it.
    p.write('editor.sh', '#!/bin/sh\necho "EDITOR OPEN $1"\nread line\necho "$line" > "$1/typed.txt"\n');
    chmodSync(join(p.dir, 'editor.sh'), 0o755);
    const term = new Tmux(p, `EDITOR='${join(p.dir, 'editor.sh')}' ${shop('tui')}`);
    try {
      await term.waitFor(new RegExp(`› ${id} +gate +⏸ waiting`));
      term.keys('o');
      const editing = await term.waitFor(`EDITOR OPEN ${p.dir}`);
      expect(editing).not.toContain('Shop runs');
      term.type('typed in the editor');
      await term.waitFor(new RegExp(`Shop runs — 1 run[\\s\\S]*› ${id} +gate +⏸ waiting`));
      expect(readFileSync(join(p.dir, 'typed.txt'), 'utf8')).toBe('typed in the editor\n');
      term.keys('q');
      expect(await term.waitFor('[exit ')).toContain('[exit 0]');
    } finally {
      term.kill();
    }
  });

  it('bare `shop` on a terminal opens the browser; on a pipe it prints the help', async () => {
    const p = makeProject();
    expect(p.shop([]).stdout).toContain('Usage:  shop <command>');
    const term = new Tmux(p, shop(''));
    try {
      await term.waitFor('Shop runs — 0 runs');
      term.keys('q');
      expect(await until('exit', () => term.screen().includes('[exit ') && term.screen())).toContain('[exit 0]');
    } finally {
      term.kill();
    }
  });
});
