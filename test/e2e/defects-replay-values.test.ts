import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, type Project, type Result } from './harness.js';

/**
 * Regression tests (Engine v2): a recorded answer survives a broken agent file; values too
 * deep or cyclic fail the run with one line (never a stack overflow, never left running);
 * a changed workflow is caught on replay instead of being followed silently.
 */

/** `{d = {d = … {leaf = "bottom"}}}`: `levels` tables, as Lua builds it in DEEP below. */
function nested(levels: number): Record<string, unknown> {
  let t: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 1; i < levels; i++) t = { d: t };
  return t;
}

const DEEP = [
  'local function nest(levels)',
  '  local t = { leaf = "bottom" }',
  '  for i = 2, levels do t = { d = t } end',
  '  return t',
  'end',
  'function workflow(prompt)',
  '  return nest(tonumber(prompt))',
  'end',
].join('\n');

/** One line on stderr, `shop: run <id> failed: …`, exit 1; returns the reason. */
function failedLine(r: Result, id: number): string {
  expect(r.stderr).not.toMatch(/internal error|stack overflow|^\s+at /m);
  expect(lines(r.stderr), r.stderr).toHaveLength(1);
  expect(r.code).toBe(1);
  const line = lines(r.stderr)[0];
  const prefix = `shop: run ${id} failed: `;
  expect(line.slice(0, prefix.length)).toBe(prefix);
  return line.slice(prefix.length);
}

describe('an answer recorded while the agent file is broken', () => {
  it('shop approve on an approval ask returns APPROVED to the script without loading or re-invoking the agent', () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Merge it?', awaiting: 'approval' },
          { status: 'DONE', summary: 're-invoked' },
        ],
      },
    });
    p.write('workflows/approve.lua', 'function workflow(prompt)\n  return run("coder", "do it").status\nend\n');
    const run = p.shop(['run', 'approve']);
    expect(run.code).toBe(3);
    const id = runId(run);
    p.write('agents/coder.md', '---\nmodel: [unclosed\n---\nYou are the coder.\n');

    const r = p.shop(['approve', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      `run ${id} call 1 (${id}.1): answered approved by tester`,
      `  (run ${id}'s one open ask: ${id}.1 — coder asks (approval): Merge it?)`,
      `  [1] answered by tester; resuming`,
      `run ${id} completed: "APPROVED"`,
    ]);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: 'APPROVED' });
    expect(p.status(id).executions.map((e) => [e.key, e.status, e.attempts])).toEqual([['1', 'completed', 1]]);
    expect(p.invocations()).toHaveLength(1);
  });
});

describe('deep and cyclic values', () => {
  function project(): Project {
    const p = makeProject();
    p.write('workflows/deep.lua', DEEP);
    return p;
  }

  it.each([10, 150])('a workflow result nested %i levels deep completes with exactly that value', (levels) => {
    const p = project();
    const r = p.shop(['run', 'deep', String(levels)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: ${JSON.stringify(nested(levels))}`);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: nested(levels) });
  });

  it('an agent signal whose extra field is nested 10 levels deep reaches the script intact', () => {
    const p = makeProject();
    // The stand-in spreads `fields` into the signal; the harness types them as strings.
    p.scenario({
      agents: {
        coder: [
          { status: 'DONE', summary: 'deep', fields: { payload: nested(10) } as unknown as Record<string, string> },
        ],
      },
    });
    p.write(
      'workflows/sig.lua',
      'function workflow(prompt)\n  local r = run("coder", "go")\n  return { status = r.status, payload = r.payload }\nend\n',
    );
    const r = p.shop(['run', 'sig']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = p.status(runId(r));
    expect(s).toMatchObject({ status: 'completed', result: { status: 'DONE', payload: nested(10) } });
    expect(s.executions[0].result).toMatchObject({ status: 'DONE', payload: nested(10) });
  });

  const failing: [string, string, string, string][] = [
    [
      'a result nested 250 levels deep',
      'deep',
      '250',
      "deep.lua: the workflow's result is nested more than 200 levels deep",
    ],
    ['a cyclic result', 'cyclic', '', "cyclic.lua: the workflow's result is cyclic"],
    ['a cyclic table as run() options', 'cyclicopts', '', 'cyclicopts.lua:4: run(): argument 2 is cyclic'],
  ];
  it.each(failing)(
    '%s fails the run with one line, and resume fails the same way',
    (_what, workflow, prompt, reason) => {
      const p = project();
      p.write(
        'workflows/cyclic.lua',
        'function workflow(prompt)\n  local t = { name = "loop" }\n  t.self = t\n  return t\nend\n',
      );
      p.write(
        'workflows/cyclicopts.lua',
        'function workflow(prompt)\n  local o = { prompt = "go" }\n  o.again = o\n  return run("coder", o).status\nend\n',
      );
      const r = p.shop(['run', workflow, ...(prompt ? [prompt] : [])]);
      const id = runId(r);
      const line = failedLine(r, id);
      expect(line.slice(0, reason.length)).toBe(reason);
      expect(p.status(id)).toMatchObject({ status: 'failed', reason: line });

      const again = p.shop(['resume', String(id)]);
      expect(failedLine(again, id)).toBe(line);
      expect(p.status(id)).toMatchObject({ status: 'failed', reason: line });
      expect(p.invocations()).toHaveLength(0);
    },
  );
});

describe('replay against a changed workflow', () => {
  const ND = [
    'function workflow(prompt)',
    '  local a = run("coder", "first step")',
    '  local d = pause{ message = "Go on?", decisions = { { id = "ok", type = "approval", prompt = "Ship it?" } } }',
    '  return a.status',
    'end',
  ].join('\n');
  const nd = (key: string, recorded: string, now: string) =>
    `non-determinism at call ${key}: the log recorded ${recorded} but the workflow now ${now}; ` +
    'the workflow changed since this run started — restore it, guard the change with patched(), or start a new run';

  /** Runs nd.lua to its pause, edits it with `change`, and checks resume fails with `reason`, then works once restored. */
  function changedThenRestored(change: (src: string) => string, reason: string) {
    const p = makeProject();
    p.write('workflows/nd.lua', ND);
    const run = p.shop(['run', 'nd']);
    expect(run.code).toBe(3);
    const id = runId(run);
    expect(p.invocations()).toHaveLength(1);

    const changed = change(ND);
    expect(changed).not.toBe(ND);
    p.write('workflows/nd.lua', changed);
    const r = p.shop(['resume', String(id)]);
    expect(r.stdout).toBe('');
    expect(failedLine(r, id)).toBe(reason);
    expect(p.status(id)).toMatchObject({ status: 'failed', reason, pending: null });
    expect(p.invocations()).toHaveLength(1);

    p.write('workflows/nd.lua', ND);
    const back = p.shop(['resume', String(id)]);
    expect(back.stderr).toBe('');
    expect(back.code).toBe(3);
    expect(back.stdout).toContain(`run ${id} is waiting for a person (checkpoint): the workflow asks: Go on?`);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', reason: null, pending: { key: '2', kind: 'pause' } });
    expect(p.invocations()).toHaveLength(1);
  }

  it('a changed prompt of a completed run() is a non-determinism naming both prompts', () => {
    changedThenRestored(
      (src) => src.replace('"first step"', '"second step"'),
      nd('1', 'run("coder") with prompt "first step"', 'calls run("coder") with prompt "second step"'),
    );
  });

  it('a script that now returns before a recorded call is a non-determinism, not a completed run', () => {
    changedThenRestored(
      (src) => src.replace('  local d = pause', '  if true then return "early" end\n  local d = pause'),
      nd('2', 'pause("Go on?")', 'returns before reaching it'),
    );
  });

  it('a pause whose decisions changed is a non-determinism naming both decision specs', () => {
    changedThenRestored(
      (src) => src.replace('"Ship it?"', '"Ship it now?"'),
      nd(
        '2',
        'pause("Go on?") with decisions [{"id":"ok","type":"approval","prompt":"Ship it?","required":true}]',
        'calls pause("Go on?") with decisions [{"id":"ok","type":"approval","prompt":"Ship it now?","required":true}]',
      ),
    );
  });
});
