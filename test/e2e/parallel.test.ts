import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InboxRowJsonSchema } from '../../packages/core/src/operations/shapes.js';
import {
  agentRunning,
  cutLifelines,
  lines,
  makeProject,
  runId,
  until,
  type Invocation,
  type Project,
  type RunDetail,
} from './harness.js';

/** `shop inbox --json`, checked against the documented shape. */
function inbox(p: Project) {
  const r = p.shop(['inbox', '--json']);
  expect(r.code).toBe(0);
  return InboxRowJsonSchema.array().parse(JSON.parse(r.stdout));
}

/** [key, kind, agent, status] of every execution, in key order (branches start concurrently, so seq order may vary). */
const rows = (s: RunDetail) =>
  s.executions.map((e) => [e.key, e.kind, e.agent, e.status]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/** Agent invocations as [agent, call, resumed], sorted (branches start concurrently). */
const calls = (inv: Invocation[]) =>
  inv
    .filter((i) => i.mode === 'print')
    .map((i) => [i.agent, i.call, i.resumed])
    .sort((a, b) => String(a[1]).localeCompare(String(b[1])) || Number(a[2]) - Number(b[2]));

const pauseHint = (id: number, key: string) => [
  `  decide here:  shop continue ${id}.${key}`,
  `  approve:      shop approve ${id}.${key}`,
  `  stop it:      shop reject ${id}.${key} "why"`,
];

describe('parallel(): one branch waits for a person while the others finish', () => {
  it('suspends on exactly that ask; answering it completes the run with the results in argument order, no agent re-run', () => {
    const p = makeProject();
    // The architect (branch 1) finishes after the coder (branch 3): completion order is not argument order.
    p.scenario({
      agents: {
        architect: [{ status: 'DONE', summary: 'plan A', sleep_ms: 1_000 }],
        coder: [{ status: 'DONE', summary: 'code C' }],
      },
    });
    p.write(
      'workflows/fan.lua',
      `function workflow(prompt)
  local a, b, c = parallel(
    function() return run("architect", "plan " .. prompt).summary end,
    function() return pause("Ship b?").continue end,
    function() return run("coder", "build " .. prompt).summary end)
  return { a, b, c }
end
`,
    );
    const r = p.shop(['run', 'fan', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    const id = runId(r);
    const [architect, coder] = ['architect', 'coder'].map((a) => p.invocations().find((i) => i.agent === a)!);
    const out = lines(r.stdout);
    expect(out[0]).toBe(`run ${id} started (fan)`);
    expect(out.slice(-4)).toEqual([
      `run ${id} is waiting for a person (checkpoint): the workflow asks: Ship b?`,
      ...pauseHint(id, '1/2/1'),
    ]);
    // Progress lines of concurrent branches: which comes first is timing; each comes once.
    expect(out.slice(1, -4).sort()).toEqual(
      [
        `  [1/1/1] architect started (session ${architect.session_id})`,
        '  [1/1/1] architect → DONE: plan A',
        '  [1/2/1] waiting for a person: Ship b?',
        `  [1/3/1] coder started (session ${coder.session_id})`,
        '  [1/3/1] coder → DONE: code C',
      ].sort(),
    );
    // The architect finished after the coder.
    expect(out.indexOf('  [1/3/1] coder → DONE: code C')).toBeLessThan(
      out.indexOf('  [1/1/1] architect → DONE: plan A'),
    );

    const s = p.status(id);
    expect(s).toMatchObject({
      status: 'waiting_human',
      agent: '_checkpoint',
      awaiting: 'checkpoint',
      waiting_for: 'Ship b?',
      result: null,
    });
    expect(s.pending).toMatchObject({ key: '1/2/1', kind: 'pause', question: 'Ship b?', ask: 1 });
    expect(rows(s)).toEqual([
      ['1', 'parallel', null, 'running'],
      ['1/1/1', 'run', 'architect', 'completed'],
      ['1/2/1', 'pause', '_checkpoint', 'waiting_human'],
      ['1/3/1', 'run', 'coder', 'completed'],
    ]);
    expect(s.executions.filter((e) => e.status === 'waiting_human')).toHaveLength(1);
    expect(inbox(p)).toEqual([
      expect.objectContaining({
        run: id,
        spec: 'fan',
        key: '1/2/1',
        kind: 'pause',
        question: 'Ship b?',
        answer_with: [`shop continue ${id}.1/2/1`, `shop approve ${id}.1/2/1`, `shop reject ${id}.1/2/1 "why"`],
      }),
    ]);
    expect(calls(p.invocations())).toEqual([
      ['architect', '1/1/1', false],
      ['coder', '1/3/1', false],
    ]);

    const done = p.shop(['approve', String(id)]);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(lines(done.stdout)).toEqual([
      `run ${id} call 1/2/1 (${id}.1/2/1): answered approved by tester`,
      `  (run ${id}'s one open ask: ${id}.1/2/1 — the workflow asks (checkpoint): Ship b?)`,
      '  [1/2/1] answered by tester; resuming',
      `run ${id} completed: ["plan A",true,"code C"]`,
    ]);
    const after = p.status(id);
    expect(after).toMatchObject({ status: 'completed', result: ['plan A', true, 'code C'], pending: null });
    expect(rows(after).map((e) => e[3])).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(inbox(p)).toEqual([]);
    // Replay answered both agents from the log: still one invocation each.
    expect(calls(p.invocations())).toEqual([
      ['architect', '1/1/1', false],
      ['coder', '1/3/1', false],
    ]);
  });
});

describe('parallel(): replay interleaves branches as the live run did', () => {
  it('a run suspended after a parallel resumes to the result an uninterrupted run returns', () => {
    const p = makeProject();
    // The architect (branch 2) answers last; branch 2 notes something before its first call.
    p.scenario({ agents: { architect: [{ status: 'DONE', sleep_ms: 800 }] } });
    const body = (end: string) => `function workflow(prompt)
  local order = {}
  parallel(
    function() run("coder", "first"); order[#order + 1] = "a got its result" end,
    function() order[#order + 1] = "b starts"; run("architect", "second"); order[#order + 1] = "b got its result" end)
${end}
end
`;
    p.write('workflows/straight.lua', body('  return order'));
    p.write('workflows/paused.lua', body('  pause("Go?")\n  return order'));
    // Live, every branch runs up to its first call before any result is handed over.
    const expected = ['b starts', 'a got its result', 'b got its result'];
    const straight = p.shop(['run', 'straight', 'x']);
    expect(straight.code).toBe(0);
    expect(lines(straight.stdout).at(-1)).toBe(`run ${runId(straight)} completed: ${JSON.stringify(expected)}`);

    const paused = p.shop(['run', 'paused', 'x']);
    expect(paused.code).toBe(3);
    const id = runId(paused);
    // Answering replays the parallel from the log: the same interleaving, the same result.
    const done = p.shop(['approve', String(id)]);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(lines(done.stdout).at(-1)).toBe(`run ${id} completed: ${JSON.stringify(expected)}`);
    expect(calls(p.invocations().filter((i) => i.run === String(id)))).toEqual([
      ['coder', '1/1/1', false],
      ['architect', '1/2/1', false],
    ]);
  });
});

describe('parallel(): two branches waiting at once', () => {
  const WORKFLOW = `function workflow(prompt)
  local a, b, c = parallel(
    function() return pause("Left?").continue end,
    function() return run("coder", "middle").summary end,
    function() return run("architect", "right").status end)
  return { a, b, c }
end
`;

  /** Runs two.lua up to its two asks (a pause, and the architect's NEEDS_HUMAN for approval); returns the run id. */
  function twoAsks(p: Project): number {
    const r = p.shop(['run', 'two', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    const id = runId(r);
    expect(lines(r.stdout).slice(-9)).toEqual([
      `run ${id} is waiting for people: 2 asks`,
      'call 1/1/1 (checkpoint): the workflow asks: Left?',
      ...pauseHint(id, '1/1/1'),
      'call 1/3/1 (approval): architect asks: Which db?',
      `  talk to the agent:  shop continue ${id}.1/3/1`,
      `  approve:            shop approve ${id}.1/3/1 [--message "…"]   (returns APPROVED to the workflow)`,
      `  reject:             shop reject ${id}.1/3/1 "feedback"   (goes back to the agent)`,
    ]);
    const status = p.status(id);
    expect(status).toMatchObject({ status: 'waiting_human', pending: { key: '1/1/1' } });
    expect(status.asks.map((a) => [a.key, a.awaiting])).toEqual([
      ['1/1/1', 'checkpoint'],
      ['1/3/1', 'approval'],
    ]);
    const text = lines(p.shop(['status', String(id)]).stdout);
    expect(text).toEqual(
      expect.arrayContaining([
        'call 1/1/1 (checkpoint): the workflow asks: Left?',
        'call 1/3/1 (approval): architect asks: Which db?',
      ]),
    );
    const several = p.shop(['status', String(id), '--aah']);
    expect(several.code).toBe(2);
    expect(several.stderr).toBe(
      `shop: run ${id} waits on several calls: 1/1/1 (_checkpoint: Left?); 1/3/1 (architect: Which db?); pick one with: shop status ${id} --aah --call <key>\n`,
    );
    expect(JSON.parse(p.shop(['status', String(id), '--aah', '--call', '1/3/1']).stdout).artifact.id).toBe(
      `shop-run-${id}-call-1-3-1-ask-1`,
    );
    // Two asks of one run: every suggestion names its own ask (never a bare `shop continue <id>`, which would exit 2).
    expect(
      inbox(p)
        .filter((row) => row.run === id)
        .map((row) => [row.key, row.answer_with[0]])
        .sort(),
    ).toEqual([
      ['1/1/1', `shop continue ${id}.1/1/1`],
      ['1/3/1', `shop continue ${id}.1/3/1`],
    ]);

    // By bare run id the answer is refused: nothing recorded, both asks listed by handle.
    const bare = p.shop(['approve', String(id)]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(lines(bare.stderr)).toEqual([
      `shop: run ${id} waits on several asks; open now: ${id}.1/1/1 (the workflow asks: Left?); ${id}.1/3/1 (architect asks: Which db?); answer one by its handle, e.g. shop approve ${id}.1/1/1`,
    ]);
    expect(
      p
        .status(id)
        .executions.filter((e) => e.status === 'waiting_human')
        .map((e) => e.key)
        .sort(),
    ).toEqual(['1/1/1', '1/3/1']);
    return id;
  }

  /** By --call on the first run, by handle on the second: the same ask either way. */
  function approve(p: Project, id: number, call: string, how: 'call' | 'handle') {
    const r = p.shop(how === 'call' ? ['approve', String(id), '--call', call] : ['approve', `${id}.${call}`]);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)[0]).toBe(`run ${id} call ${call} (${id}.${call}): answered approved by tester`);
    return r;
  }

  function expectCompleted(p: Project, id: number, r: { code: number | null; stdout: string }) {
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: [true,"coder finished: middle","APPROVED"]`);
    expect(p.status(id)).toMatchObject({
      status: 'completed',
      result: [true, 'coder finished: middle', 'APPROVED'],
      pending: null,
    });
    // Each agent ran once in this run: the approval closed the architect's ask without sending it back.
    expect(calls(p.invocations().filter((i) => i.run === String(id)))).toEqual([
      ['coder', '1/2/1', false],
      ['architect', '1/3/1', false],
    ]);
  }

  it('are answered with --call, in either order', () => {
    const p = makeProject();
    p.scenario({ agents: { architect: [{ status: 'NEEDS_HUMAN', reason: 'Which db?', awaiting: 'approval' }] } });
    p.write('workflows/two.lua', WORKFLOW);

    // The agent's ask first, then the pause.
    const first = twoAsks(p);
    const r1 = approve(p, first, '1/3/1', 'call');
    expect(r1.code).toBe(3);
    expect(lines(r1.stdout)).toEqual(expect.arrayContaining(['  [1/3/1] answered by tester; resuming']));
    expect(lines(r1.stdout).slice(-4)).toEqual([
      `run ${first} is waiting for a person (checkpoint): the workflow asks: Left?`,
      ...pauseHint(first, '1/1/1'),
    ]);
    expect(p.status(first)).toMatchObject({ status: 'waiting_human', pending: { key: '1/1/1', kind: 'pause' } });
    expect(
      inbox(p)
        .filter((row) => row.run === first)
        .map((row) => row.key),
    ).toEqual(['1/1/1']);
    expectCompleted(p, first, approve(p, first, '1/1/1', 'call'));

    // The pause first, then the agent's ask.
    const second = twoAsks(p);
    const r2 = approve(p, second, '1/1/1', 'handle');
    expect(r2.code).toBe(3);
    expect(lines(r2.stdout).slice(-4)).toEqual([
      `run ${second} is waiting for a person (approval): architect asks: Which db?`,
      `  talk to the agent:  shop continue ${second}.1/3/1`,
      `  approve:            shop approve ${second}.1/3/1 [--message "…"]   (returns APPROVED to the workflow)`,
      `  reject:             shop reject ${second}.1/3/1 "feedback"   (goes back to the agent)`,
    ]);
    expect(p.status(second)).toMatchObject({
      status: 'waiting_human',
      pending: { key: '1/3/1', kind: 'run', agent: 'architect' },
    });
    expectCompleted(p, second, approve(p, second, '1/3/1', 'handle'));
    expect(inbox(p)).toEqual([]);
  });
});

describe('parallel(): kill -9 of the driving process during a fan-out', () => {
  const WORKFLOW = `function workflow(prompt)
  local a, b, c = parallel(
    function() return run("architect", "plan").summary end,
    function() return run("coder", "build").summary end,
    function() return run("reviewer", "review").summary end)
  return { a, b, c, run("deployer", "ship").summary }
end
`;
  const QUICK = {
    architect: [{ status: 'DONE', summary: 'planned' }],
    coder: [{ status: 'DONE', summary: 'built' }],
    reviewer: [{ status: 'DONE', summary: 'reviewed' }],
    deployer: [{ status: 'DONE', summary: 'shipped' }],
  };

  it('resume takes a written signal from disk, re-invokes the running call on its session, and ends as the uninterrupted run', async () => {
    // The run as it goes uninterrupted, for comparison.
    const calm = makeProject();
    calm.write('workflows/fan.lua', WORKFLOW);
    calm.scenario({ agents: QUICK });
    const base = calm.shop(['run', 'fan', 'x']);
    expect(base.code).toBe(0);
    const expected = calm.status(runId(base));

    const p = makeProject();
    p.write('workflows/fan.lua', WORKFLOW);
    p.scenario({
      agents: {
        ...QUICK,
        // Reports at once, then lingers: its signal is on disk, its call still running.
        coder: [{ status: 'DONE', summary: 'built', after_ms: 30_000 }],
        // Works for a long while (killed on takeover); on --resume it finishes at once.
        reviewer: [
          { status: 'DONE', summary: 'reviewed', sleep_ms: 30_000 },
          { status: 'DONE', summary: 'reviewed' },
        ],
      },
    });
    const bg = p.spawnShop(['run', 'fan', 'x']);
    await until('the run id', () => /run \d+ started/.test(bg.output()));
    const id = runId(bg.output());
    await until('the architect done, the coder reported, the reviewer working', () => {
      if (!existsSync(p.signalFile(id, '1/2/1', 'coder')) || !p.invocations().some((i) => i.agent === 'reviewer'))
        return false;
      return p.status(id).executions.some((e) => e.key === '1/1/1' && e.status === 'completed');
    });
    // As if their lifelines failed with the driver: the resume's own orphan check must end them.
    cutLifelines(p.invocations());
    bg.child.kill('SIGKILL');
    expect(await bg.exited).toBeNull();

    const crashed = p.status(id);
    expect(crashed.status).toBe('interrupted');
    expect(rows(crashed)).toEqual([
      ['1', 'parallel', null, 'running'],
      ['1/1/1', 'run', 'architect', 'completed'],
      ['1/2/1', 'run', 'coder', 'running'],
      ['1/3/1', 'run', 'reviewer', 'running'],
    ]);
    const orphans = Object.fromEntries(p.invocations().map((i) => [i.agent, i]));
    expect(agentRunning(orphans.coder)).toBe(true);
    expect(agentRunning(orphans.reviewer)).toBe(true);

    const r = p.shop(['resume', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: ["planned","built","reviewed","shipped"]`);
    // Nothing a dead driver left behind runs on.
    expect(agentRunning(orphans.coder)).toBe(false);
    expect(agentRunning(orphans.reviewer)).toBe(false);

    // No completed call re-run: the architect ran once, the coder's signal was taken from disk,
    // only the reviewer (still working) was invoked again, resuming its own session.
    expect(calls(p.invocations())).toEqual([
      ['architect', '1/1/1', false],
      ['coder', '1/2/1', false],
      ['reviewer', '1/3/1', false],
      ['reviewer', '1/3/1', true],
      ['deployer', '2', false],
    ]);
    const reviewer = p.invocations().filter((i) => i.agent === 'reviewer');
    expect(reviewer[1].session_id).toBe(reviewer[0].session_id);
    expect(reviewer[1].prompt).toContain('You were interrupted before reporting');

    const s = p.status(id);
    expect(s.status).toBe('completed');
    expect(s.result).toEqual(expected.result);
    expect(rows(s)).toEqual(rows(expected));
    expect(s.executions.find((e) => e.key === '1/2/1')).toMatchObject({
      attempts: 1,
      result: { status: 'DONE', summary: 'built', session_id: orphans.coder.session_id },
    });
    expect(s.executions.find((e) => e.key === '1/3/1')).toMatchObject({
      attempts: 2,
      session_id: orphans.reviewer.session_id,
    });
  });
});

describe('parallel(): an error in one branch', () => {
  // The coder works a moment (long enough for the reviewer's process to be up), then its branch raises.
  const branches = `
    function() run("coder", "quick"); error("boom") end,
    function() return run("reviewer", "slow").status end`;
  const SLOW_REVIEWER = {
    agents: { coder: [{ status: 'DONE', sleep_ms: 1_000 }], reviewer: [{ status: 'DONE', sleep_ms: 30_000 }] },
  };

  /** The sibling's agent was started, then killed; its call failed as cancelled. */
  async function expectSiblingCancelled(p: Project, id: number, reason: string) {
    const reviewer = p.invocations().find((i) => i.agent === 'reviewer')!;
    await until('the sibling agent to be gone', () => !agentRunning(reviewer), 5_000);
    const s = p.status(id);
    expect(s.executions.find((e) => e.key === '1/2/1')).toMatchObject({
      status: 'failed',
      error: `cancelled: ${reason}`,
    });
    expect(s.executions.find((e) => e.key === '1')).toMatchObject({
      kind: 'parallel',
      status: 'failed',
      error: reason,
    });
    expect(s.executions.find((e) => e.key === '1/1/1')).toMatchObject({ status: 'completed' });
    expect(calls(p.invocations())).toEqual([
      ['coder', '1/1/1', false],
      ['reviewer', '1/2/1', false],
    ]);
  }

  it('uncaught: the run fails naming the branch and the error; the sibling agent is killed and its call cancelled', async () => {
    const p = makeProject();
    p.scenario(SLOW_REVIEWER);
    p.write(
      'workflows/fail.lua',
      `function workflow(prompt)\n  local a, b = parallel(${branches})\n  return { a, b }\nend\n`,
    );
    const started = Date.now();
    const r = p.shop(['run', 'fail', 'x']);
    // Cancelled, not waited for.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.code).toBe(1);
    const id = runId(r);
    const reason = 'parallel: branch 1 (1/1) failed: fail.lua:3: boom';
    expect(lines(r.stderr)).toEqual([`shop: run ${id} failed: fail.lua:2: ${reason}`]);
    expect(p.status(id)).toMatchObject({ status: 'failed', reason: `fail.lua:2: ${reason}` });
    await expectSiblingCancelled(p, id, reason);
  });

  it('caught with pcall: the run completes with the error message', async () => {
    const p = makeProject();
    p.scenario(SLOW_REVIEWER);
    p.write(
      'workflows/caught.lua',
      `function workflow(prompt)\n  local ok, err = pcall(parallel,${branches})\n  return { ok = ok, err = err }\nend\n`,
    );
    const r = p.shop(['run', 'caught', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    const reason = 'parallel: branch 1 (1/1) failed: caught.lua:3: boom';
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: ${JSON.stringify({ ok: false, err: reason })}`);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: { ok: false, err: reason } });
    await expectSiblingCancelled(p, id, reason);
  });

  it('caught with pcall, then suspended: the replay goes past the failed parallel to the same result', async () => {
    const p = makeProject();
    p.scenario(SLOW_REVIEWER);
    p.write(
      'workflows/caught.lua',
      `function workflow(prompt)\n  local ok, err = pcall(parallel,${branches})\n  return { ok = ok, err = err, go = pause("Go on?").continue }\nend\n`,
    );
    const r = p.shop(['run', 'caught', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    const id = runId(r);
    const reason = 'parallel: branch 1 (1/1) failed: caught.lua:3: boom';
    await expectSiblingCancelled(p, id, reason);

    // The replay must hand the recorded results over and go past the cancelled call, as the live run did.
    const done = p.shop(['approve', String(id)]);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(lines(done.stdout).at(-1)).toBe(
      `run ${id} completed: ${JSON.stringify({ ok: false, err: reason, go: true })}`,
    );
    expect(calls(p.invocations())).toEqual([
      ['coder', '1/1/1', false],
      ['reviewer', '1/2/1', false],
    ]);
  });
});

describe('patched()', () => {
  const V1 = `function workflow(prompt)
  run("coder", "a")
  pause("Go?")
  return run("coder", "b").summary
end
`;
  const V2 = `function workflow(prompt)
  run("coder", "a")
  pause("Go?")
  if patched("lint") then run("reviewer", "lint") end
  return run("coder", "b").summary
end
`;
  const DONE = { default: { status: 'DONE', summary: 'ok' } };

  /** Starts a run of patch.lua and checks it waits at the pause (call 2). */
  function suspendAtPause(p: Project): number {
    const r = p.shop(['run', 'patch', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    const id = runId(r);
    expect(p.status(id).pending).toMatchObject({ key: '2', kind: 'pause' });
    return id;
  }
  const keys = (p: Project, id: number) => p.status(id).executions.map((e) => [e.key, e.kind, e.agent, e.result]);
  const agentsOf = (p: Project, id: number) =>
    p
      .invocations()
      .filter((i) => i.run === String(id))
      .map((i) => [i.agent, i.call, i.resumed]);

  it('is false replaying a run recorded past it before the patch, true when a run reaches it live, and true replaying its marker', () => {
    const p = makeProject();
    p.scenario(DONE);
    p.write('workflows/patch.lua', V1);
    const asks = 'asks.json';
    p.write(
      asks,
      JSON.stringify({
        agents: {
          coder: [
            { status: 'DONE', summary: 'ok' },
            { status: 'NEEDS_HUMAN', reason: 'Lint too?', awaiting: 'approval' },
          ],
        },
      }),
    );

    // Under v1: run A waits at the pause; run B goes past the patch point and waits at coder "b" (call 3).
    const a = suspendAtPause(p);
    const b = suspendAtPause(p);
    const bAsks = p.shop(['approve', String(b)], { env: { SHOP_STANDIN_SCENARIO: `${p.dir}/${asks}` } });
    expect(bAsks.code).toBe(3);
    expect(p.status(b).pending).toMatchObject({ key: '3', kind: 'run', agent: 'coder', question: 'Lint too?' });

    p.write('workflows/patch.lua', V2);

    // B recorded call 3 before the patch existed: patched() is false, the old path replays and completes.
    const bDone = p.shop(['approve', String(b), '--message', 'ok']);
    expect(bDone.stderr).toBe('');
    expect(bDone.code).toBe(0);
    expect(lines(bDone.stdout).at(-1)).toBe(`run ${b} completed: "ok"`);
    expect(keys(p, b).map((e) => e.slice(0, 3))).toEqual([
      ['1', 'run', 'coder'],
      ['2', 'pause', '_checkpoint'],
      ['3', 'run', 'coder'],
    ]);
    expect(agentsOf(p, b)).toEqual([
      ['coder', '1', false],
      ['coder', '3', false],
    ]);

    // A was suspended before the patch point: answering it, the run reaches patched() live — the
    // new code path (true, as DESIGN.md and Temporal's patched() have it; nothing recorded conflicts).
    const aDone = p.shop(['approve', String(a)]);
    expect(aDone.stderr).toBe('');
    expect(aDone.code).toBe(0);
    expect(lines(aDone.stdout).at(-1)).toBe(`run ${a} completed: "ok"`);
    expect(keys(p, a).map((e) => e.slice(0, 3))).toEqual([
      ['1', 'run', 'coder'],
      ['2', 'pause', '_checkpoint'],
      ['3', 'patch', null],
      ['4', 'run', 'reviewer'],
      ['5', 'run', 'coder'],
    ]);
    expect(keys(p, a)[2][3]).toBe(true);
    expect(agentsOf(p, a)).toEqual([
      ['coder', '1', false],
      ['reviewer', '4', false],
      ['coder', '5', false],
    ]);

    // A new run of v2: waits at the pause, then the reviewer asks (suspended past the marker);
    // answering replays the marker as true and the recorded reviewer call, and goes on.
    p.write(
      asks,
      JSON.stringify({
        agents: { reviewer: [{ status: 'NEEDS_HUMAN', reason: 'Strict lint?', awaiting: 'approval' }] },
        default: { status: 'DONE', summary: 'ok' },
      }),
    );
    const c = suspendAtPause(p);
    const cAsks = p.shop(['approve', String(c)], { env: { SHOP_STANDIN_SCENARIO: `${p.dir}/${asks}` } });
    expect(cAsks.code).toBe(3);
    expect(p.status(c).pending).toMatchObject({ key: '4', kind: 'run', agent: 'reviewer', question: 'Strict lint?' });
    const cDone = p.shop(['approve', String(c)]);
    expect(cDone.stderr).toBe('');
    expect(cDone.code).toBe(0);
    expect(lines(cDone.stdout).at(-1)).toBe(`run ${c} completed: "ok"`);
    const cRows = keys(p, c);
    expect(cRows.map((e) => e.slice(0, 3))).toEqual([
      ['1', 'run', 'coder'],
      ['2', 'pause', '_checkpoint'],
      ['3', 'patch', null],
      ['4', 'run', 'reviewer'],
      ['5', 'run', 'coder'],
    ]);
    expect(cRows[2][3]).toBe(true);
    expect(cRows[3][3]).toMatchObject({ status: 'APPROVED', responder: 'tester' });
    // The reviewer ran once: its ask was answered, not re-run, on the replay that passed the marker.
    expect(agentsOf(p, c)).toEqual([
      ['coder', '1', false],
      ['reviewer', '4', false],
      ['coder', '5', false],
    ]);
  });
});
