import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, until, type Project } from './harness.js';

/** A one-call workflow; `head` goes before it (a config{}), `opts` into run(). */
function oneCall(p: Project, head = '', opts = '') {
  p.write(
    'workflows/once.lua',
    `${head}\nfunction workflow(prompt)\n  local r = run("coder", { prompt = "Build it"${opts} })\n  return { status = r.status, summary = r.summary }\nend\n`,
  );
}

const FAST = { SHOP_RETRY_BASE_MS: '20', SHOP_RETRY_CAP_MS: '40' };

function retryEvents(p: Project, id: number) {
  const log = p.shop(['log', String(id), '--json']);
  expect(log.code).toBe(0);
  return (
    JSON.parse(log.stdout).events as { type: string; key: string | null; data: Record<string, unknown> | null }[]
  ).filter((e) => e.type === 'agent_retry');
}

describe('transient agent failures retry on the same session', () => {
  it('529 twice, then success: the run completes, one session throughout, two retries in the audit trail', () => {
    const p = makeProject();
    oneCall(p);
    p.scenario({ agents: { coder: [{ fail: 529 }, { fail: 529 }, { status: 'DONE', summary: 'built' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: {"status":"DONE","summary":"built"}`);
    expect(r.stdout).toMatch(
      /\[1\] coder failed on attempt 1 of 4 \(API Error: 529 .*overloaded_error.*\); trying again in \d+m?s on the same session/,
    );

    const calls = p.invocations().filter((i) => i.mode === 'print');
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.session_id)).size).toBe(1);
    expect(calls.map((c) => c.resumed)).toEqual([false, true, true]);
    expect(calls[1].prompt).toMatch(
      /^Your last turn was cut off by a transient error \(API overloaded\)\. Continue where you left off[\s\S]*What you were asked: Build it$/,
    );

    const retries = retryEvents(p, id);
    expect(retries.map((e) => [e.key, e.data?.attempt, e.data?.of, e.data?.kind])).toEqual([
      ['1', 1, 4, 'overloaded'],
      ['1', 2, 4, 'overloaded'],
    ]);
    expect(String(retries[0].data?.error)).toMatch(/^API Error: 529 .*overloaded_error/);
    expect(retries[0].data?.delay_ms).toEqual(expect.any(Number));
    const exec = p.status(id).executions.find((e) => e.key === '1');
    expect(exec).toMatchObject({ status: 'completed', attempts: 3 });
  });

  it('429, 500 and network errors retry too, and an is_error result with exit code 0 (as Claude Code may end)', () => {
    const p = makeProject();
    oneCall(p, 'config{ retries = 4 }');
    p.scenario({
      agents: {
        coder: [
          { fail: 429 },
          { fail: 'network' },
          { fail: 500 },
          { fail: 529, exit: 0 },
          { status: 'DONE', summary: 'ok' },
        ],
      },
    });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(0);
    expect(retryEvents(p, runId(r)).map((e) => [e.data?.kind, e.data?.of])).toEqual([
      ['rate_limit', 5],
      ['network', 5],
      ['server_error', 5],
      ['overloaded', 5],
    ]);
  });

  it('config{retries = 1}: fails after 2 attempts, naming the error and the attempts', () => {
    const p = makeProject();
    oneCall(p, 'config{ retries = 1 }');
    p.scenario({ agents: { coder: [{ fail: 529 }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(1);
    const id = runId(r);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: run ${id} failed: API overloaded on all 2 attempts; the last: claude reported an error: API Error: 529 .*overloaded_error`,
        ),
      ),
    ]);
    expect(p.invocations().filter((i) => i.mode === 'print')).toHaveLength(2);
    expect(retryEvents(p, id)).toHaveLength(1);
  });

  it('run(…, {retries = 0}) overrides config: the first 529 fails the run', () => {
    const p = makeProject();
    oneCall(p, 'config{ retries = 5 }', ', retries = 0');
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(1);
    expect(p.invocations().filter((i) => i.mode === 'print')).toHaveLength(1);
  });

  it('an auth error is not retried', () => {
    const p = makeProject();
    oneCall(p);
    p.scenario({ agents: { coder: [{ fail: 'auth' }, { status: 'DONE' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed: claude reported an error: Invalid API key · Please run \/login/);
    expect(p.invocations().filter((i) => i.mode === 'print')).toHaveLength(1);
    expect(retryEvents(p, runId(r))).toEqual([]);
  });

  it('a bad retries value is refused by name', () => {
    const p = makeProject();
    oneCall(p, 'config{ retries = -1 }');
    const r = p.shop(['run', 'once', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/config: retries: Too small/);
    oneCall(p, '', ', retries = 1.5');
    const r2 = p.shop(['run', 'once', 'x']);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/run\("coder", opts\): retries: .*expected int.*known: .*budget_usd, retries\)/);
  });

  it('shop stop during a long backoff ends the run stuck at once, not after the wait', async () => {
    const p = makeProject();
    oneCall(p);
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE' }] } });
    // The first retry waits 30–60 s.
    const bg = p.spawnShop(['run', 'once', 'x'], { env: { SHOP_RETRY_BASE_MS: '60000', SHOP_RETRY_CAP_MS: '60000' } });
    await until('the retry to be scheduled', () => bg.output().includes('trying again in'));
    const id = runId(bg.output());
    // What it is doing meanwhile, for shop status and list.
    const waiting = await until('the wait to show', () =>
      p.status(id).executions.find((e) => e.activity?.includes('waiting')),
    );
    expect(waiting.activity).toMatch(/^API overloaded: waiting \d+s to try again \(attempt 2 of 4 next\)$/);
    const asked = Date.now();
    expect(p.shop(['stop', String(id), '--reason', 'enough']).code).toBe(0);
    expect(await bg.exited).toBe(4);
    // Well inside the 30 s the wait would have taken at the least.
    expect(Date.now() - asked).toBeLessThan(20_000);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'enough' });
    expect(p.invocations().filter((i) => i.mode === 'print')).toHaveLength(1);
  });

  it('kill -9 of the driver during the wait: shop resume waits out the rest, then goes on with the same session and count', async () => {
    const p = makeProject();
    oneCall(p);
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE', summary: 'built' }] } });
    // The first retry waits 2–4 s: long enough to kill the driver inside it.
    const env = { SHOP_RETRY_BASE_MS: '4000', SHOP_RETRY_CAP_MS: '4000' };
    const bg = p.spawnShop(['run', 'once', 'x'], { env });
    await until('the retry to be scheduled', () => bg.output().includes('trying again in'));
    bg.child.kill('SIGKILL');
    await bg.exited;
    const id = runId(bg.output());
    const [scheduled] = retryEvents(p, id);
    expect(scheduled.data).toMatchObject({ attempt: 1, of: 4, attempts: 1 });

    const r = p.shop(['resume', String(id)], { env });
    expect(r.code).toBe(0);
    const calls = p.invocations().filter((i) => i.mode === 'print');
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ session_id: calls[0].session_id, resumed: true });
    // Not before the wait the dead driver had scheduled.
    expect((calls[1] as unknown as { at: number }).at).toBeGreaterThanOrEqual(Number(scheduled.data?.retry_at));
    // The same streak: one retry in all, the execution on its second attempt.
    expect(retryEvents(p, id)).toHaveLength(1);
    expect(p.status(id).executions[0]).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('SIGTERM during the wait: exit 130 at once, the run resumable', async () => {
    const p = makeProject();
    oneCall(p);
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE' }] } });
    const bg = p.spawnShop(['run', 'once', 'x'], { env: { SHOP_RETRY_BASE_MS: '60000', SHOP_RETRY_CAP_MS: '60000' } });
    await until('the retry to be scheduled', () => bg.output().includes('trying again in'));
    const asked = Date.now();
    bg.child.kill('SIGTERM');
    expect(await bg.exited).toBe(130);
    expect(Date.now() - asked).toBeLessThan(20_000);
    expect(bg.output()).toMatch(/shop: run \d+ interrupted/);
  });

  it("a call's timeout counts the waits: no retry that could not start in time", () => {
    const p = makeProject();
    oneCall(p, '', ', timeout = 5');
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: { SHOP_RETRY_BASE_MS: '60000', SHOP_RETRY_CAP_MS: '60000' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /failed: API overloaded on attempt 1 of 4, and the call's timeout \(5s\) ends before the next could start \(in \d+s\); the last: claude reported an error: API Error: 529/,
    );
    expect(p.invocations().filter((i) => i.mode === 'print')).toHaveLength(1);
  });

  it("the call's budget_usd counts what the failed tries cost: a retry may spend only the rest, and none when it is spent", () => {
    const p = makeProject();
    oneCall(p, '', ', budget_usd = 0.05');
    p.scenario({ agents: { coder: [{ fail: 529, cost: 0.03 }, { fail: 529, cost: 0.03 }, { status: 'DONE' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(4);
    expect(lines(r.stdout).at(-1)).toMatch(/^run \d+ is stuck: budget of \$0\.05 spent: \$0\.06$/);
    expect(
      p
        .invocations()
        .filter((i) => i.mode === 'print')
        .map((i) => i.max_budget_usd),
    ).toEqual([0.05, 0.02]);
  });
});
