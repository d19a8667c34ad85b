import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, trail, until, type Project } from './harness.js';

/**
 * Tool gates through the real binary: the Claude stand-in follows Claude Code's documented
 * defer protocol (it runs the PreToolUse hook Shop puts in --settings — `shop gate` — and, on
 * a deferral, ends with stop_reason "tool_deferred"; resumed with no prompt, it runs the hook
 * again and obeys allow / deny / updatedInput).
 */

function project(gates: string[], toolCall: { name: string; input: Record<string, unknown> }, extra = ''): Project {
  const p = makeProject();
  p.write(
    'agents/coder.md',
    `---\nallowed_tools: ["Bash(shop report:*)"]\ngates: ${JSON.stringify(gates)}\n${extra}---\nYou ship code.\n`,
  );
  p.write(
    'workflows/ship.lua',
    'function workflow(prompt)\n  local r = run("coder", { prompt = "Ship it" })\n  return r.summary\nend\n',
  );
  p.scenario({ agents: { coder: [{ tool_call: toolCall, status: 'DONE' }] } });
  return p;
}

const FORCE = { name: 'Bash', input: { command: 'git push --force origin main', description: 'push' } };
const tools = (p: Project) =>
  p
    .invocations()
    .filter((i) => i.mode === 'print')
    .map(
      (i) =>
        (i as { tool?: { name: string; input: { command?: string }; decision: string; reason?: string } }).tool ?? null,
    );

describe('a gated tool call waits for a person', () => {
  it('git push --force: the step suspends naming the command; rejected with a reason, the agent reads it; the trail says who decided', () => {
    const p = project(['Bash(git push --force*)'], FORCE);
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.code).toBe(3);
    const id = runId(r);
    expect(r.stdout).toContain('coder wants to run: Bash git push --force origin main');
    expect(p.status(id).executions[0]).toMatchObject({ status: 'waiting_human', awaiting: 'approval' });
    const rejected = p.shop(['reject', `${id}.1`, '--message', 'never force-push main']);
    expect(rejected.stderr).toBe('');
    expect(rejected.code).toBe(0);
    expect(lines(rejected.stdout).at(-1)).toBe(`run ${id} completed: "denied: never force-push main"`);
    expect(tools(p).at(-1)).toMatchObject({ name: 'Bash', decision: 'deny', reason: 'never force-push main' });
    const events = trail(p, id).filter((e) => e.type === 'tool_deferred' || e.type === 'tool_decided');
    expect(
      events.map((e) => [
        e.type,
        e.actor,
        (e.data as { tool?: string }).tool,
        (e.data as { decision?: string }).decision ?? null,
      ]),
    ).toEqual([
      ['tool_deferred', 'coder', 'Bash', null],
      ['tool_decided', 'tester', 'Bash', 'deny'],
    ]);
  });

  it('words edit the command: the call runs as the person wrote it', () => {
    const p = project(['Bash(git push --force*)'], FORCE);
    const id = runId(p.shop(['run', 'ship', 'x']));
    const edited = p.shop(['answer', `${id}.1`, 'git push origin main']);
    expect(edited.code).toBe(0);
    expect(lines(edited.stdout).at(-1)).toBe(`run ${id} completed: "ran: git push origin main"`);
    expect(tools(p).at(-1)).toMatchObject({
      name: 'Bash',
      decision: 'allow',
      input: { command: 'git push origin main' },
    });
  });

  it('a gated write shows what it changes: the file as it is now against what the agent would write', () => {
    const p = project(['Write(.env*)'], { name: 'Write', input: { file_path: '.env', content: 'A=1\nB=new\n' } });
    p.write('.env', 'A=1\nB=old\n');
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('coder wants to run: Write .env');
    expect(r.stdout).toMatch(/- B=old\n\s*\+ B=new/);
    const ask = JSON.parse(p.shop(['inbox', '--json']).stdout)[0];
    expect(ask.question).toBe('coder wants to run: Write .env\n- B=old\n+ B=new');
  });

  it('a call no gate names runs without asking', () => {
    const p = project(['Bash(git push --force*)'], { name: 'Bash', input: { command: 'npm test' } });
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toMatch(/completed: "ran: npm test"$/);
  });
});

describe('AskUserQuestion', () => {
  it("suspends on the agent's question; the person's answer reaches the agent keyed by its question", () => {
    const p = project(['AskUserQuestion'], {
      name: 'AskUserQuestion',
      input: {
        questions: [
          {
            question: 'Which database?',
            header: 'DB',
            options: [
              { label: 'Postgres', description: 'server' },
              { label: 'SQLite', description: 'file' },
            ],
            multiSelect: false,
          },
        ],
      },
    });
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.code).toBe(3);
    const id = runId(r);
    expect(r.stdout).toContain('Which database?');
    expect(p.status(id).executions[0]).toMatchObject({ awaiting: 'input' });
    const answered = p.shop(['answer', `${id}.1`, 'SQLite']);
    expect(answered.code).toBe(0);
    expect(lines(answered.stdout).at(-1)).toBe(`run ${id} completed: "answered: {\\"Which database?\\":\\"SQLite\\"}"`);
  });
});

describe('AskUserQuestion with several questions', () => {
  it('asks a choice per question (one of several where it allows several); the choices reach the agent keyed by their questions', () => {
    const questions = [
      {
        question: 'Which database?',
        header: 'DB',
        options: [
          { label: 'Postgres', description: 'server' },
          { label: 'SQLite', description: 'file' },
        ],
        multiSelect: false,
      },
      {
        question: 'Which checks?',
        header: 'Checks',
        options: [{ label: 'Lint' }, { label: 'Tests' }, { label: 'Types' }],
        multiSelect: true,
      },
    ];
    const p = project(['AskUserQuestion'], { name: 'AskUserQuestion', input: { questions } });
    const id = runId(p.shop(['run', 'ship', 'x']));
    const ask = JSON.parse(p.shop(['inbox', '--json']).stdout)[0];
    expect(
      ask.decisions.map((d: { id: string; type: string; prompt: string; options: { value: string }[] }) => [
        d.id,
        d.type,
        d.prompt,
        d.options.map((o) => o.value),
      ]),
    ).toEqual([
      ['q1', 'choice', 'Which database?', ['Postgres', 'SQLite']],
      ['q2', 'multi_choice', 'Which checks?', ['Lint', 'Tests', 'Types']],
    ]);
    const bad = p.shop(['signal', `${id}.1`, '--answers', '{"q1": "MySQL", "q2": ["Lint"]}']);
    expect(bad.code).toBe(2);
    const r = p.shop(['signal', `${id}.1`, '--answers', '{"q1": "SQLite", "q2": ["Lint", "Tests"]}']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(
      `run ${id} completed: "answered: {\\"Which database?\\":\\"SQLite\\",\\"Which checks?\\":\\"Lint, Tests\\"}"`,
    );
  });
});

describe('kill -9 while a gate waits', () => {
  it('then an answer: the call is decided once, the run completes once', async () => {
    const p = project(['Bash(git push --force*)'], FORCE);
    const bg = p.spawnShop(['run', 'ship', 'x', '--wait']);
    await until('the gate to wait', () => /wants to run: Bash git push --force/.test(bg.output()));
    const id = runId(bg.output());
    bg.child.kill('SIGKILL');
    await bg.exited;
    const approved = p.shop(['approve', `${id}.1`]);
    expect(approved.code).toBe(0);
    expect(lines(approved.stdout).at(-1)).toBe(`run ${id} completed: "ran: git push --force origin main"`);
    const ran = tools(p).filter((t) => t?.decision === 'allow');
    expect(ran).toHaveLength(1);
    expect(trail(p, id).filter((e) => e.type === 'tool_decided')).toHaveLength(1);
  });
});

describe('kill -9 while a decision is handed over', () => {
  it('after the call ran: the resume hands it over again, Claude Code says nothing is deferred, and the step goes on with a prompt — the call ran once', async () => {
    const p = project(['Bash(git push --force*)'], FORCE);
    p.scenario({
      agents: {
        coder: [
          { tool_call: FORCE, status: 'DONE', sleep_ms: 30_000 },
          { status: 'DONE', summary: 'went on' },
        ],
      },
    });
    const id = runId(p.shop(['run', 'ship', 'x']));
    const bg = p.spawnShop(['approve', `${id}.1`]);
    await until('the call to run', () => tools(p).some((t) => t?.decision === 'allow'));
    bg.child.kill('SIGKILL');
    await bg.exited;
    const r = p.shop(['resume', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: "went on"`);
    expect(tools(p).filter((t) => t?.decision === 'allow')).toHaveLength(1);
    expect(trail(p, id).filter((e) => e.type === 'tool_decided')).toHaveLength(1);
    // The decision was handed over again (no prompt), then the step went on with one.
    expect(
      p
        .invocations()
        .filter((i) => i.mode === 'print')
        .at(-1)?.prompt,
    ).toBe('Continue the task and report when done.');
  });
});

describe("the workflow's gates (config{gates})", () => {
  it('hold a call of every Claude Code agent of the run; a Codex agent in such a run fails its step rather than run ungated', () => {
    const p = makeProject();
    p.write('agents/coder.md', '---\nallowed_tools: ["Bash(shop report:*)"]\n---\nYou ship code.\n');
    p.write(
      'workflows/ship.lua',
      'config{ gates = { "Bash(git push --force*)" } }\nfunction workflow(prompt)\n  return run("coder", { prompt = "Ship it" }).summary\nend\n',
    );
    p.scenario({ agents: { coder: [{ tool_call: FORCE, status: 'DONE' }] } });
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('coder wants to run: Bash git push --force origin main');
    p.write('agents/coder.md', '---\ncli: codex\n---\nYou ship code.\n');
    const codex = p.shop(['run', 'ship', 'x']);
    expect(codex.code).toBe(1);
    expect(lines(codex.stderr)).toEqual([
      expect.stringMatching(
        /^shop: run \d+ failed: the workflow's gates \(config\{gates\}\) hold tool calls for a person, which only Claude Code agents can do; agent coder runs Codex/,
      ),
    ]);
  });
});

describe('a gated call in a parallel() branch', () => {
  it('suspends only that branch: the other finishes; the answer completes the run', () => {
    const p = makeProject();
    p.write(
      'agents/coder.md',
      `---\nallowed_tools: ["Bash(shop report:*)"]\ngates: ["Bash(git push --force*)"]\n---\nYou ship code.\n`,
    );
    p.write(
      'workflows/fan.lua',
      'function workflow(prompt)\n  local a, b = parallel(\n    function() return run("coder", "ship").summary end,\n    function() return run("architect", "plan").summary end)\n  return { a, b }\nend\n',
    );
    p.scenario({
      agents: { coder: [{ tool_call: FORCE, status: 'DONE' }], architect: [{ status: 'DONE', summary: 'plan A' }] },
    });
    const r = p.shop(['run', 'fan', 'x']);
    expect(r.code).toBe(3);
    const id = runId(r);
    const s = p.status(id);
    expect(s.executions.map((e) => [e.key, e.agent, e.status])).toEqual([
      ['1', null, 'running'],
      ['1/1/1', 'coder', 'waiting_human'],
      ['1/2/1', 'architect', 'completed'],
    ]);
    const done = p.shop(['approve', `${id}.1/1/1`]);
    expect(done.code).toBe(0);
    expect(lines(done.stdout).at(-1)).toBe(`run ${id} completed: ["ran: git push --force origin main","plan A"]`);
    // The architect ran once.
    expect(p.invocations().filter((i) => i.agent === 'architect' && i.mode === 'print')).toHaveLength(1);
  });
});
