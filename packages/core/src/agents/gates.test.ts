import { describe, expect, it } from 'vitest';
import { changeOf, describeDeferred, hookOutput } from './gates.js';
import { gateDecision } from '../engine/gate-decision.js';
import type { Answer } from '../types.js';

describe('gates', () => {
  it("speak Claude Code's PreToolUse hook output", () => {
    expect(JSON.parse(hookOutput('defer'))).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer' },
    });
    expect(JSON.parse(hookOutput('deny', { reason: 'no force push' }))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'no force push',
      },
    });
    expect(
      JSON.parse(hookOutput('allow', { updatedInput: { command: 'git push' } })).hookSpecificOutput.updatedInput,
    ).toEqual({ command: 'git push' });
    expect(describeDeferred({ name: 'Bash', input: { command: 'git push --force' } })).toBe('Bash git push --force');
  });
});

describe("a person's answer to a deferred call", () => {
  const answer = (over: Partial<Answer>): Answer =>
    ({
      runId: 1,
      key: '1',
      ask: 1,
      verdict: null,
      status: null,
      message: null,
      decisions: null,
      responder: 'ann',
      channel: 'cli',
      answeredAt: 0,
      ...over,
    }) as Answer;
  const push = { id: 'toolu_1', name: 'Bash', input: { command: 'git push --force origin main', description: 'push' } };

  it('approve runs it as asked; reject denies it with the words (or who rejected it); words edit a command', () => {
    expect(gateDecision(push, answer({ verdict: 'approved' }))).toEqual({ tool_use_id: 'toolu_1', decision: 'allow' });
    expect(gateDecision(push, answer({ verdict: 'rejected', message: 'never force-push main' }))).toEqual({
      tool_use_id: 'toolu_1',
      decision: 'deny',
      reason: 'never force-push main',
    });
    expect(gateDecision(push, answer({ verdict: 'rejected' }))).toMatchObject({
      decision: 'deny',
      reason: 'ann did not allow this call',
    });
    expect(gateDecision(push, answer({ verdict: 'answer', message: 'git push origin main' }))).toEqual({
      tool_use_id: 'toolu_1',
      decision: 'allow',
      updatedInput: { command: 'git push origin main', description: 'push' },
    });
    expect(
      gateDecision(
        { id: 't', name: 'Write', input: { file_path: '.env' } },
        answer({ verdict: 'answer', message: 'not there' }),
      ),
    ).toMatchObject({ decision: 'deny', reason: 'not there' });
    expect(gateDecision(push, answer({ status: 'STOP' }))).toMatchObject({ decision: 'deny' });
  });

  it("answers AskUserQuestion's question with the words, keyed by the question", () => {
    const ask = {
      id: 'toolu_2',
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
    expect(gateDecision(ask, answer({ verdict: 'answer', message: 'SQLite' }))).toEqual({
      tool_use_id: 'toolu_2',
      decision: 'allow',
      updatedInput: { ...ask.input, answers: { 'Which database?': 'SQLite' } },
    });
  });
});

describe('what a gated file change shows', () => {
  it("an Edit's lines gone and added; a Write against the file as it is; long changes cut and counted", () => {
    expect(
      changeOf(
        {
          name: 'Edit',
          input: { file_path: 'a.ts', old_string: 'x = 1\ny = 2\nz = 3', new_string: 'x = 1\ny = 20\nz = 3' },
        },
        null,
      ),
    ).toBe('- y = 2\n+ y = 20');
    expect(changeOf({ name: 'Write', input: { file_path: '.env', content: 'A=1\nB=new\n' } }, 'A=1\nB=old\n')).toBe(
      '- B=old\n+ B=new',
    );
    expect(changeOf({ name: 'Write', input: { file_path: '.env', content: 'A=1' } }, null)).toBe('+ A=1');
    const long = changeOf(
      {
        name: 'Write',
        input: { file_path: 'big', content: Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') },
      },
      null,
    )!;
    expect(long.split('\n')).toHaveLength(41);
    expect(long.split('\n').at(-1)).toBe('… 60 more changed lines');
    expect(changeOf({ name: 'Bash', input: { command: 'ls' } }, null)).toBeNull();
  });
});
