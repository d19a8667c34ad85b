import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentRunning, lines, makeProject, runId, until, type Project } from './harness.js';

/** Starts `shop run feature x` and SIGKILLs it once `ready` holds; returns the run id. */
async function killShopWhen(p: Project, what: string, ready: () => boolean): Promise<number> {
  const bg = p.spawnShop(['run', 'feature', 'x']);
  await until(what, () => /run \d+ started/.test(bg.output()) && ready());
  const id = runId(bg.output());
  bg.child.kill('SIGKILL');
  expect(await bg.exited).toBeNull();
  return id;
}

/** After the crash: the run shows as interrupted, in text and JSON. */
function expectInterrupted(p: Project, id: number) {
  const text = p.shop(['status', String(id)]);
  expect(text.code).toBe(0);
  expect(lines(text.stdout)[0]).toMatch(new RegExp(`^Run ${id}: interrupted `));
  expect(text.stdout).toContain(`Pick it up with: shop resume ${id}`);
  const s = p.status(id);
  expect(s.status).toBe('interrupted');
  expect(s.executions).toEqual([expect.objectContaining({ key: '1', agent: 'architect', status: 'running' })]);
}

/** `shop resume` drives on to the pause; answering it completes the run. */
function resumeToTheEnd(p: Project, id: number) {
  const r = p.shop(['resume', String(id)]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  expect(r.stdout).toContain(`run ${id} is waiting for a person (checkpoint): the workflow asks: Approve deployment?`);
  const done = p.shop(['signal', String(id), '--status', 'CONTINUE']);
  expect(done.code).toBe(0);
  const s = p.status(id);
  expect(s.status).toBe('completed');
  expect(s.executions.map((e) => [e.key, e.agent, e.status])).toEqual([
    ['1', 'architect', 'completed'],
    ['2', 'coder', 'completed'],
    ['3', 'reviewer', 'completed'],
    ['4', 'coder', 'completed'],
    ['5', 'reviewer', 'completed'],
    ['6', '_checkpoint', 'completed'],
    ['7', 'deployer', 'completed'],
  ]);
}

describe('kill -9 of the driving process, then shop resume', () => {
  it('while the agent works: the agent is re-invoked on its own session, everything else runs once', async () => {
    const p = makeProject();
    // The first architect would work for a long while; the second is quick.
    p.scenario({
      agents: {
        architect: [
          { status: 'DONE', summary: 'plan A', sleep_ms: 60_000 },
          { status: 'DONE', summary: 'plan B' },
        ],
      },
    });
    const id = await killShopWhen(p, 'the architect to start', () =>
      p.invocations().some((i) => i.agent === 'architect'),
    );
    const orphan = p.invocations()[0];
    // It dies with its driver (its lifeline): no agent works on a call no one drives, so a
    // worker on another machine that takes the run over never meets it still working.
    await until('the orphaned agent to end with its driver', () => !agentRunning(orphan));
    expectInterrupted(p, id);

    resumeToTheEnd(p, id);
    // The orphaned agent was killed before its call was taken over.
    expect(agentRunning(orphan)).toBe(false);
    const architect = p.invocations().filter((i) => i.agent === 'architect');
    expect(architect.map((i) => [i.call, i.resumed, i.session_id])).toEqual([
      ['1', false, orphan.session_id],
      ['1', true, orphan.session_id],
    ]);
    expect(architect[1].prompt).toContain('You were interrupted before reporting');
    expect(p.status(id).executions[0]).toMatchObject({
      session_id: orphan.session_id,
      attempts: 2,
      result: { summary: 'plan B' },
    });
    // Every other call ran exactly once.
    expect(
      p
        .invocations()
        .filter((i) => i.agent !== 'architect')
        .map((i) => i.call),
    ).toEqual(['2', '3', '4', '5', '7']);
  });

  it('after the agent wrote its signal: resume takes the signal from disk, no new invocation', async () => {
    const p = makeProject();
    // The architect reports at once, then lingers before exiting (shop dies in that window).
    p.scenario({ agents: { architect: [{ status: 'DONE', summary: 'plan A', after_ms: 5000 }] } });
    // Its name carries a nonce: looked up each time, as the file appears.
    const id = await killShopWhen(p, 'the architect signal', () => existsSync(p.signalFile(1, '1', 'architect')));
    expect(id).toBe(1);
    expectInterrupted(p, id);

    resumeToTheEnd(p, id);
    const architect = p.invocations().filter((i) => i.agent === 'architect');
    expect(architect).toHaveLength(1);
    expect(agentRunning(architect[0])).toBe(false);
    expect(p.status(id).executions[0]).toMatchObject({ attempts: 1, result: { status: 'DONE', summary: 'plan A' } });
    expect(p.invocations().map((i) => i.call)).toEqual(['1', '2', '3', '4', '5', '7']);
  });
});
