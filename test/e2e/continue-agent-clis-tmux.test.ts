import { describe, expect, it } from 'vitest';
import { makeProject, runId, shopBin } from './harness.js';
import { Terminal } from './terminal.js';

const shopCommand = (args: string) => `'${process.execPath}' '${shopBin}' ${args}`;

const BANNER = {
  codex: (id: string) => `OpenAI Codex (stand-in) — resumed thread ${id}`,
  gemini: (id: string) => `Gemini CLI (stand-in) — resumed session ${id}`,
};

describe.each(['codex', 'gemini'] as const)('shop continue of an agent on %s, in a real terminal (tmux)', (cli) => {
  it("hands the terminal to the agent's own CLI on its session, in its cwd; the run completes after the chat", async () => {
    const p = makeProject();
    p.write('agents/coder.md', `---\ncli: ${cli}\n---\nYou write code.\n`);
    p.write(
      'workflows/once.lua',
      'function workflow(prompt)\n  return run("coder", { prompt = "Fix the bug" }).summary\nend\n',
    );
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'fixed' },
        ],
      },
    });
    const run = p.shop(['run', 'once', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);
    const waiting = p.status(id).executions[0]!;
    expect(waiting).toMatchObject({ key: '1', agent: 'coder', status: 'waiting_human' });

    const term = new Terminal(p, shopCommand(`continue ${id}`));
    try {
      const banner = await term.waitFor(/^> ?$/m);
      expect(banner).toContain(`Opening ${cli === 'codex' ? 'Codex' : 'Gemini'} session for: coder   [ask ${id}.1]`);
      expect(banner).toContain(BANNER[cli](waiting.session_id!));
      const end = await term.answerAndLeave();
      expect(end).toContain('coder reported DONE; resuming run');
      expect(end).toContain(`run ${id} completed`);
      expect(end).toContain('[exit 0]');
    } finally {
      term.kill();
    }
    const chat = p.invocations().filter((i) => i.mode === 'interactive');
    expect(chat).toHaveLength(1);
    expect(chat[0]).toMatchObject({
      cli,
      agent: 'coder',
      call: '1',
      run: String(id),
      session_id: waiting.session_id,
      cwd: p.dir,
    });
    expect(p.status(id).status).toBe('completed');
  });
});
