import { describe, expect, it } from 'vitest';
import { describeIssues } from '../lua/issues.js';
import { oneThread, type TestStep } from '../lua/testing/one-thread.js';
import { PauseSpecSchema } from './decision-spec.js';

/** The one-line problem pause() would report for `spec`, or null when it is accepted. */
function problem(spec: unknown): string | null {
  const r = PauseSpecSchema.safeParse(spec);
  return r.success ? null : describeIssues(r.error);
}
const withDecisions = (...decisions: unknown[]) => ({ message: 'Ship?', decisions });

describe('PauseSpecSchema', () => {
  it('normalises string and {value, label} options to {value, label}', () => {
    const spec = PauseSpecSchema.parse(
      withDecisions({
        id: 'when',
        type: 'choice',
        prompt: 'When?',
        options: ['now', { value: 'later', label: 'Next week', description: 'after the freeze' }, { value: 'never' }],
      }),
    );
    expect(spec.decisions![0].options).toEqual([
      { value: 'now', label: 'now', description: undefined },
      { value: 'later', label: 'Next week', description: 'after the freeze' },
      { value: 'never', label: 'never' },
    ]);
  });

  it('required defaults to true and can be turned off', () => {
    const spec = PauseSpecSchema.parse(
      withDecisions(
        { id: 'a', type: 'approval', prompt: 'A?' },
        { id: 'b', type: 'text', prompt: 'B?', required: false },
      ),
    );
    expect(spec.decisions!.map((d) => d.required)).toEqual([true, false]);
  });

  it('keeps message, context, deadline and on_timeout', () => {
    const spec = {
      message: 'Deploy?',
      context: 'v2.1 is green',
      deadline: '2026-02-17T17:00:00Z',
      on_timeout: 'default',
    };
    expect(PauseSpecSchema.parse(spec)).toEqual(spec);
    expect(PauseSpecSchema.parse({ message: 'x', deadline: 3600 }).deadline).toBe(3600);
  });

  it('a deadline is an ISO 8601 time or seconds; on_timeout one of stuck, notify_again, default', () => {
    expect(problem({ message: 'x', deadline: 'tomorrow' })).toBe(
      'deadline: must be an ISO 8601 time such as 2026-02-17T17:00:00Z, or a number of seconds',
    );
    expect(problem({ message: 'x', deadline: -5 })).toMatch(/^deadline: /);
    expect(problem({ message: 'x', on_timeout: 'later' })).toMatch(/^on_timeout: /);
  });

  it('refuses a choice or multi_choice without options', () => {
    expect(problem(withDecisions({ id: 'c', type: 'choice', prompt: 'C?' }))).toBe(
      'decisions.0.options: a choice decision needs options',
    );
    expect(
      problem(
        withDecisions(
          { id: 'a', type: 'approval', prompt: 'A?' },
          { id: 'm', type: 'multi_choice', prompt: 'M?', options: [] },
        ),
      ),
    ).toBe('decisions.1.options: a multi_choice decision needs options');
  });

  it('refuses duplicate ids, naming the id and where', () => {
    expect(
      problem(withDecisions({ id: 'x', type: 'approval', prompt: 'A?' }, { id: 'x', type: 'text', prompt: 'B?' })),
    ).toBe("decisions.1.id: duplicate decision id 'x'");
  });

  it('refuses a pattern that is not a regular expression', () => {
    expect(problem(withDecisions({ id: 't', type: 'text', prompt: 'T?', constraints: { pattern: '([a-z' } }))).toBe(
      'decisions.0.constraints.pattern: is not a valid regular expression',
    );
  });

  it('refuses unknown keys, at the top and inside a decision', () => {
    expect(problem({ message: 'x', decision: [] })).toBe("unknown key 'decision'");
    expect(problem(withDecisions({ id: 'a', type: 'approval', prompt: 'A?', colour: 'red' }))).toMatch(
      /unknown key 'colour'/,
    );
    expect(problem(withDecisions({ id: 'a', type: 'approval', prompt: 'A?', constraints: { minimum: 1 } }))).toMatch(
      /unknown key 'minimum'/,
    );
  });

  it('refuses a bad id, type or missing prompt', () => {
    expect(problem(withDecisions({ id: '1st', type: 'approval', prompt: 'A?' }))).toBe(
      'decisions.0.id: must be a word (letters, digits, _ or -)',
    );
    expect(problem(withDecisions({ id: 'a', type: 'yesno', prompt: 'A?' }))).toMatch(
      /^decisions\.0\.type: .*"approval"/,
    );
    expect(problem(withDecisions({ id: 'a', type: 'approval' }))).toMatch(/^decisions\.0\.prompt: /);
    expect(problem({ message: '' })).toMatch(/^message: /);
  });

  it('accepts the empty Lua table {} as no decisions', () => {
    expect(PauseSpecSchema.parse({ message: 'x', decisions: {} }).decisions).toEqual([]);
    expect(problem({ message: 'x', decisions: { a: 1 } })).toMatch(/^decisions: /);
  });
});

function pauseIn(body: string): TestStep {
  return oneThread(`function workflow(prompt)\n${body}\nend\n`).start('');
}

describe('pause{} from Lua', () => {
  it('yields the parsed spec, Lua tables and all', () => {
    const step = pauseIn(`local p = pause{ message = "Ship?", decisions = {
        { id = "ok", type = "approval", prompt = "Ship it?" },
        { id = "when", type = "choice", prompt = "When?", options = { "now", "later" }, default = "later" },
        { id = "n", type = "number", prompt = "How many?", required = false, constraints = { min = 1, max = 3 } },
      } }`);
    expect(step).toMatchObject({ kind: 'request', request: { type: 'pause', spec: { message: 'Ship?' } } });
    const spec = (step as { request: { spec: ReturnType<typeof PauseSpecSchema.parse> } }).request.spec;
    expect(spec.decisions!.map((d) => [d.id, d.required, d.default])).toEqual([
      ['ok', true, undefined],
      ['when', true, 'later'],
      ['n', false, undefined],
    ]);
    expect(spec.decisions![1].options!.map((o) => o.label)).toEqual(['now', 'later']);
    expect(spec.decisions![2].constraints).toEqual({ min: 1, max: 3 });
  });

  it('an empty decisions table is a plain pause', () => {
    expect(pauseIn('pause{ message = "Go?", decisions = {} }')).toEqual({
      kind: 'request',
      request: { type: 'pause', spec: { message: 'Go?', decisions: [] } },
    });
  });

  it('a bad decision raises a Lua error at the caller line naming the problem', () => {
    expect(
      pauseIn('local a = 1\npause{ message = "Go?", decisions = { { id = "c", type = "choice", prompt = "C?" } } }'),
    ).toEqual({
      kind: 'error',
      message: 'flow.lua:3: pause(message | spec): decisions.0.options: a choice decision needs options',
    });
    expect(
      pauseIn('pause{ message = "Go?", decisions = { { id = "c", type = "choice", prompt = "C?", options = {} } } }'),
    ).toEqual({
      kind: 'error',
      message: 'flow.lua:2: pause(message | spec): decisions.0.options: a choice decision needs options',
    });
    const dup = pauseIn(
      '\n\npause{ message = "Go?", decisions = { { id = "x", type = "approval", prompt = "A?" }, { id = "x", type = "approval", prompt = "B?" } } }',
    );
    expect(dup).toEqual({
      kind: 'error',
      message: "flow.lua:4: pause(message | spec): decisions.1.id: duplicate decision id 'x'",
    });
    expect(pauseIn('pause{ messag = "Go?" }')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^flow\.lua:2: pause\(message \| spec\): .*unknown key 'messag'/),
    });
    expect(pauseIn('pause(42)')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^flow\.lua:2: pause\(message \| spec\): /),
    });
  });

  it('an empty multi_choice default from Lua is the empty list', () => {
    const step = pauseIn(
      'pause{ message = "Tags?", decisions = { { id = "t", type = "multi_choice", prompt = "T?", options = { "a" }, required = false, default = {} } } }',
    );
    expect(
      (step as { request: { spec: ReturnType<typeof PauseSpecSchema.parse> } }).request.spec.decisions![0].default,
    ).toEqual([]);
  });
});
