import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, runId, shopBin } from './harness.js';
import { Terminal } from './terminal.js';

const shopCommand = (args: string) => `'${process.execPath}' '${shopBin}' ${args}`;

describe('shop continue in a real terminal (tmux)', () => {
  it("hands the terminal to the agent's own session, in its cwd; the run completes after the chat", async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'fixed' },
        ],
      },
    });
    const run = p.shop(['run', 'bugfix', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);
    const waiting = p.status(id).executions[0];
    expect(waiting).toMatchObject({ key: '1', agent: 'coder', status: 'waiting_human' });

    const term = new Terminal(p, shopCommand(`continue ${id}`));
    try {
      const banner = await term.waitFor(/^> ?$/m);
      expect(banner).toContain(`Opening Claude session for: coder   [ask ${id}.1]`);
      expect(banner).toContain('Reason: Which database?');
      expect(banner).toContain(`Claude Code (stand-in) — resumed session ${waiting.session_id}`);
      const end = await term.answerAndLeave();
      expect(end).toContain('coder reported DONE; resuming run');
      expect(end).toContain(`run ${id} completed`);
      expect(end).toContain('[exit 0]');
    } finally {
      term.kill();
    }

    // `claude --resume <session>` ran in the directory the session started in.
    const chat = p.invocations().filter((i) => i.mode !== 'print');
    expect(chat.map((i) => i.mode)).toEqual(['interactive', 'said']);
    expect(chat[0]).toMatchObject({
      agent: 'coder',
      call: '1',
      run: String(id),
      session_id: waiting.session_id,
      cwd: waiting.cwd,
    });
    expect(chat[0].cwd).toBe(p.dir);
    expect(chat[1]).toMatchObject({ session_id: waiting.session_id, text: 'use postgres' });

    const s = p.status(id);
    expect(s.status).toBe('completed');
    expect(s.executions[0]).toMatchObject({
      status: 'completed',
      result: { status: 'DONE', summary: "done with the person's answer: use postgres" },
    });
    // The chat answered call 1: the coder was not run headless for it again.
    expect(
      p
        .invocations()
        .filter((i) => i.mode === 'print')
        .map((i) => i.call),
    ).toEqual(['1', '2', '3', '4']);
  });

  it('asks continue/stop at a pause on the terminal and resumes the run', async () => {
    const p = makeProject();
    const id = runId(p.shop(['run', 'feature', 'x']));
    const term = new Terminal(p, shopCommand(`continue ${id}`));
    try {
      await term.waitFor('Continue? [y/n] ');
      term.type('y');
      await term.waitFor('Note (optional): ');
      term.type('ship it');
      const end = await term.waitFor('[exit ');
      expect(end).toContain('answered CONTINUE by tester');
      expect(end).toContain(`run ${id} completed`);
      expect(end).toContain('[exit 0]');
    } finally {
      term.kill();
    }
    const s = p.status(id);
    expect(s.status).toBe('completed');
    expect(s.executions.find((e) => e.key === '6')).toMatchObject({
      status: 'completed',
      result: { continue: true, message: 'ship it' },
    });
  });

  it('--editor opens $VISUAL/$EDITOR on the workspace first, then asks as usual', async () => {
    const p = makeProject();
    const id = runId(p.shop(['run', 'feature', 'x']));
    // An "editor" that notes where it ran and on what, then exits.
    p.write('editor.sh', `#!/bin/sh\necho "$PWD|$*" > "${p.dir}/edited"\n`);
    chmodSync(join(p.dir, 'editor.sh'), 0o755);
    const term = new Terminal(
      p,
      `EDITOR='${p.dir}/editor.sh --wait' VISUAL= ${shopCommand(`continue ${id} --editor`)}`,
    );
    try {
      await term.waitFor('Continue? [y/n] ');
      expect(readFileSync(join(p.dir, 'edited'), 'utf8')).toBe(`${p.dir}|--wait ${p.dir}\n`);
      term.type('y');
      await term.waitFor('Note (optional): ');
      term.type('');
      expect(await term.waitFor('[exit ')).toContain(`run ${id} completed`);
    } finally {
      term.kill();
    }
  });
});
