import { beforeAll, describe, expect, it } from 'vitest';
import { lines, makeProject, runId, trail, type Project, type Step } from './harness.js';

/**
 * Gates match what a call does, not how it is spelled: every spelling of a force push or of a
 * recursive forced rm that a hostile probe found running with no hold is held by the same two
 * rules, through the real binary, the stand-in and Shop's hook (`shop gate`).
 */

const RULES = ['Bash(git push --force*)', 'Bash(rm -rf *)'];

/** One project whose agent takes, for the prompt "<n>", the n-th of these tool calls. */
function projectCalling(
  gates: unknown,
  calls: { name: string; input: Record<string, unknown> }[],
  workflowConfig = '',
): Project {
  const p = makeProject();
  p.write(
    'agents/coder.md',
    `---\nallowed_tools: ["Bash(shop report:*)"]\ngates: ${JSON.stringify(gates)}\n---\nYou ship code.\n`,
  );
  p.write(
    'workflows/ship.lua',
    `${workflowConfig}function workflow(prompt)\n  return run("coder", { prompt = prompt }).summary\nend\n`,
  );
  const steps: Step[] = calls.map((tool_call, i) => ({ when_prompt: `^${i}$`, tool_call, status: 'DONE' }));
  p.scenario({ agents: { coder: steps } });
  return p;
}

/** Runs the n-th call: held (the run waits, the trail says tool_deferred with this very input), or ran (its summary). */
function outcome(p: Project, n: number): { held: boolean; deferred: unknown; last: string } {
  const r = p.shop(['run', 'ship', String(n)]);
  const id = runId(r);
  const deferred = trail(p, id)
    .filter((e) => e.type === 'tool_deferred')
    .map((e) => (e.data as { input?: unknown }).input);
  return {
    held: r.code === 3 && deferred.length === 1,
    deferred: deferred[0] ?? null,
    last: lines(r.stdout).at(-1) ?? '',
  };
}

const bash = (command: string) => ({ name: 'Bash', input: { command } });

describe('every spelling of a force push and a forced recursive rm is held by the same two rules', () => {
  const variants = [
    'git push -f',
    'git push -f origin main',
    'git push origin +main',
    'git  push --force',
    ' git push --force',
    'cd x && git push --force',
    "bash -c 'git push --force'",
    'env FOO=1 git push --force',
    'git -C . push --force',
    'rm -r -f /',
    'rm -fr x',
    '/bin/rm -rf x',
    'rm --recursive --force',
    // Unreadable: a program that is a variable, a script piped into a shell.
    'G=git; $G push --force',
    "echo 'git push --force' | sh",
  ];
  let p: Project;
  beforeAll(() => {
    p = projectCalling(RULES, variants.map(bash));
  });

  it.each(variants.map((v, i) => [v, i] as const))('%j is held', (command, n) => {
    const o = outcome(p, n);
    expect(o.held).toBe(true);
    expect(o.deferred).toEqual({ command });
  });
});

describe('what the rules do not name runs without a hold', () => {
  const harmless = ['git push origin main', 'echo "git push --force"', 'rm -r x', 'git status && rm -f x'];
  let p: Project;
  beforeAll(() => {
    p = projectCalling(RULES, harmless.map(bash));
  });

  it.each(harmless.map((v, i) => [v, i] as const))('%j runs', (command, n) => {
    const o = outcome(p, n);
    expect(o.held).toBe(false);
    expect(o.last.slice(o.last.indexOf('completed: '))).toBe(`completed: ${JSON.stringify(`ran: ${command}`)}`);
  });
});

describe('the hook itself, fed the probe', () => {
  it("defers `git push -f origin main` under the two rules (with or without Claude Code's tool_use_id)", () => {
    const p = makeProject();
    const env = { SHOP_GATES: JSON.stringify(RULES) };
    for (const call of [
      { tool_name: 'Bash', tool_input: { command: 'git push -f origin main' } },
      { tool_name: 'Bash', tool_input: { command: 'git push -f origin main' }, tool_use_id: 'toolu_1' },
    ]) {
      const r = p.shop(['gate'], { input: JSON.stringify(call), env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer' },
      });
    }
    const plain = p.shop(['gate'], {
      input: JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'git push origin main' }, tool_use_id: 't' }),
      env,
    });
    expect([plain.code, plain.stdout]).toEqual([0, '']);
  });

  it('refuses a call when its gates cannot be read: it fails closed', () => {
    const p = makeProject();
    const r = p.shop(['gate'], {
      input: JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't' }),
      env: { SHOP_GATES: '{not json' },
    });
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual(['shop gate: SHOP_GATES is not JSON; the call is refused']);
    const garbled = p.shop(['gate'], { input: 'not a call', env: { SHOP_GATES: JSON.stringify(RULES) } });
    expect([garbled.code, lines(garbled.stderr)]).toEqual([
      2,
      ['shop gate: stdin is not a PreToolUse tool call (tool_name, tool_input); the call is refused'],
    ]);
  });
});

describe('file rules hold every file tool, whatever form its path takes', () => {
  let p: Project;
  const calls = (dir: string) => [
    { name: 'Write', input: { file_path: `${dir}/.env`, content: 'A=1\n' } },
    { name: 'Edit', input: { file_path: `${dir}/.env`, old_string: 'A=1', new_string: 'A=2' } },
    { name: 'MultiEdit', input: { file_path: `${dir}/.env`, edits: [{ old_string: 'A=1', new_string: 'A=2' }] } },
    { name: 'NotebookEdit', input: { notebook_path: `${dir}/config/.env.ipynb`, new_source: 'x' } },
    { name: 'Write', input: { file_path: './src/../.env', content: 'A=1\n' } },
    bash('echo A=1 > .env'),
  ];
  beforeAll(() => {
    p = makeProject();
    // The agent's file tools send absolute paths, as Claude Code does.
    const all = calls(p.dir);
    p.write(
      'agents/coder.md',
      '---\nallowed_tools: ["Bash(shop report:*)"]\ngates: ["Write(.env*)"]\n---\nYou ship code.\n',
    );
    p.write(
      'workflows/ship.lua',
      'function workflow(prompt)\n  return run("coder", { prompt = prompt }).summary\nend\n',
    );
    p.scenario({
      agents: { coder: all.map((tool_call, i) => ({ when_prompt: `^${i}$`, tool_call, status: 'DONE' })) },
    });
  });

  it.each<[number, string]>([
    [0, 'Write (absolute)'],
    [1, 'Edit'],
    [2, 'MultiEdit'],
    [3, 'NotebookEdit in a subfolder'],
    [4, 'Write ./src/../.env'],
    [5, 'Bash redirect into .env'],
  ])('%i: %s is held', (n) => {
    expect(outcome(p, n).held).toBe(true);
  });
});

describe('tool names match whatever their case', () => {
  it('mcp__*__deploy* holds mcp__prod__Deploy', () => {
    const p = projectCalling(['mcp__*__deploy*'], [{ name: 'mcp__prod__Deploy', input: { env: 'prod' } }]);
    expect(outcome(p, 0)).toMatchObject({ held: true, deferred: { env: 'prod' } });
  });
});

describe('hold by default: { hold, allow }', () => {
  const calls = [
    'npm test',
    'git status --short',
    'npm test && git push',
    'npm test; git push -f',
    'npm test > out.log',
  ].map(bash);

  it("in the agent's front matter: what every part of is allowed runs; anything else waits", () => {
    const p = projectCalling({ hold: ['Bash'], allow: ['Bash(npm test*)', 'Bash(git status*)'] }, calls);
    expect(outcome(p, 0)).toMatchObject({ held: false, last: expect.stringMatching(/completed: "ran: npm test"$/) });
    expect(outcome(p, 1).held).toBe(false);
    expect(outcome(p, 2)).toMatchObject({ held: true, deferred: { command: 'npm test && git push' } });
    expect(outcome(p, 3).held).toBe(true);
    expect(outcome(p, 4).held).toBe(false);
  });

  it("in the workflow's config{ gates = { hold = …, allow = … } }; neither it nor the agent's own gates weaken the other", () => {
    const config = 'config{ gates = { hold = { "Bash" }, allow = { "Bash(npm test*)", "Bash(git push*)" } } }\n';
    const p = projectCalling(
      { hold: ['Bash(git push*)'], allow: ['Bash(git push origin main)'] },
      [bash('npm test'), bash('git push origin main'), bash('git push -f origin main'), bash('ls')],
      config,
    );
    expect(outcome(p, 0).held).toBe(false);
    expect(outcome(p, 1).held).toBe(false);
    // The workflow allows git push*, but the agent's own block holds a push it does not allow.
    expect(outcome(p, 2).held).toBe(true);
    // The agent does not hold ls, but the workflow's block does.
    expect(outcome(p, 3).held).toBe(true);
  });

  it('a rule that is not Tool or Tool(glob) is refused by name', () => {
    const p = projectCalling({ hold: ['Bash'], allow: ['Bash npm test'] }, [bash('npm test')]);
    const r = p.shop(['run', 'ship', '0']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `shop: run ${runId(r)} failed: ${p.dir}/agents/coder.md: gates: gate "Bash npm test" must look like Tool or Tool(argument glob), e.g. Bash(git push --force*)`,
    ]);
  });
});
