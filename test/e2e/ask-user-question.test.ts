import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, type Project } from './harness.js';

/**
 * AskUserQuestion reaches a person for every Claude Code agent, without a word in its front
 * matter; `ask_user_question: false` opts out (the tool is then not there, as in plain -p mode).
 */

const QUESTION = {
  name: 'AskUserQuestion',
  input: {
    questions: [
      {
        question: 'Which database?',
        header: 'DB',
        options: [{ label: 'Postgres' }, { label: 'SQLite' }],
        multiSelect: false,
      },
    ],
  },
};

function project(frontMatter: string): Project {
  const p = makeProject();
  p.write('agents/coder.md', `${frontMatter}You ship code.\n`);
  p.write(
    'workflows/ship.lua',
    'function workflow(prompt)\n  local r = run("coder", { prompt = "Ship it" })\n  return r.summary\nend\n',
  );
  p.scenario({ agents: { coder: [{ tool_call: QUESTION, status: 'DONE' }] } });
  return p;
}

describe('AskUserQuestion is on by default', () => {
  it('an agent with no front matter at all: its question waits for a person, whose answer reaches the agent', () => {
    const p = project('');
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.code).toBe(3);
    const id = runId(r);
    expect(r.stdout).toContain('Which database?');
    const ask = JSON.parse(p.shop(['inbox', '--json']).stdout)[0];
    expect(ask.decisions.map((d: { options: { value: string }[] }) => d.options.map((o) => o.value))).toEqual([
      ['Postgres', 'SQLite'],
    ]);
    const answered = p.shop(['answer', `${id}.1`, 'SQLite']);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    expect(lines(answered.stdout).at(-1)).toBe(`run ${id} completed: "answered: {\\"Which database?\\":\\"SQLite\\"}"`);
  });

  it('ask_user_question: false opts out: the tool is not there, the agent goes on without a person', () => {
    const p = project('---\nask_user_question: false\n---\n');
    const r = p.shop(['run', 'ship', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toMatch(/completed: "unavailable: AskUserQuestion"$/);
  });
});
