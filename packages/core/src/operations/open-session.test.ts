import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flowsClosedAfterEach } from '../engine/testing/flows.js';
import type { Script } from '../engine/testing/scripted-runner.js';
import { SessionHeldError, UsageError } from '../errors.js';
import { findProject } from '../project/project.js';
import { writeSignal } from '../signals/signal.js';
import { shopOperations } from './shop-operations.js';

const flowFor = flowsClosedAfterEach('shop-open-session-');
const asks = { status: 'NEEDS_HUMAN', reason: 'which database?', awaiting: 'input' };

/** A run whose coder waits on a person (ask 1.1), and core's operations for ann or for an agent. */
async function waiting(
  script: Script = { coder: [asks] },
  before?: (world: ReturnType<typeof flowFor>['world']) => void,
) {
  const { world, dir, start, drive } = flowFor(script);
  before?.(world);
  const id = await start('local r = run("coder", "pick one")\nreturn r.status .. ": " .. (r.summary or "")');
  expect((await drive(id)).status).toBe('waiting_human');
  const opsFor = (agent: string | null) =>
    shopOperations(world.ports, findProject(dir, {}), { agentStep: agent && `SHOP_AGENT=${agent}` });
  const ops = opsFor(null);
  const { view, exec } = await ops.pickAsk({ runId: id, key: '1', ask: 1 }, 'continue');
  return { world, id, ops, opsFor, run: view.run, exec };
}

describe('openSession (shop continue, the TUI c key)', () => {
  it("hands over the agent's own session, held while the person is in it; the agent's new report is their answer", async () => {
    const { world, id, ops, run, exec } = await waiting();
    // A report lying there from before the session does not count: it goes when the session opens.
    writeSignal(exec.signalPath!, { status: 'DONE', summary: 'forged' });
    const session = await ops.openSession(run, exec, 'ann', 'answer with A');
    expect(existsSync(exec.signalPath!)).toBe(false);
    expect(session).toMatchObject({ handle: `${id}.1`, agent: 'coder', sessionId: exec.sessionId, cwd: exec.cwd });
    expect(session.env).toEqual({
      SHOP_RUN_ID: String(id),
      SHOP_CALL: '1',
      SHOP_AGENT: 'coder',
      SHOP_SIGNAL_FILE: exec.signalPath,
      SHOP_SESSION_ID: exec.sessionId,
    });
    // Meanwhile an answer from elsewhere is refused: one process per session.
    await expect(
      ops.answer(exec, { input: { verdict: 'answer', message: 'mysql' }, channel: 'cli', responder: 'bob' }),
    ).rejects.toThrow(SessionHeldError);
    writeSignal(exec.signalPath!, { status: 'DONE', summary: 'use postgres' });
    expect(await session.answer()).toEqual({ kind: 'answered', status: 'DONE', handedTo: null });
    expect(await world.store.listAnswers(id)).toMatchObject([
      { key: '1', ask: 1, status: 'DONE', message: 'use postgres', responder: 'ann', channel: 'continue' },
    ]);
    expect(await ops.resumeAfterAnswer(id, null, { wait: false })).toEqual({
      runId: id,
      outcome: { status: 'completed', result: 'DONE: use postgres' },
    });
  });

  it('no new report: nothing is answered, and the session is let go', async () => {
    const { world, id, ops, run, exec } = await waiting();
    const session = await ops.openSession(run, exec, 'ann', 'answer with A');
    expect(await session.answer()).toEqual({ kind: 'none' });
    expect(await world.store.listAnswers(id)).toEqual([]);
    expect((await world.store.getExecution(id, '1'))!.hold).toBeNull();
  });

  it('refused for an agent that runs a custom command (saying how to answer instead) and for an agent, before anything is held', async () => {
    const { world, id, ops, opsFor, run, exec } = await waiting(undefined, (w) =>
      w.agents.set('coder', { command: ['./my-agent'] } as never),
    );
    await expect(ops.openSession(run, exec, 'ann', 'answer with A or R')).rejects.toThrow(
      new UsageError('agent coder runs a custom command, not an agent CLI with sessions; answer with A or R'),
    );
    await expect(opsFor('coder').openSession(run, exec, 'coder', 'x')).rejects.toThrow(
      /cannot run inside an agent step \(SHOP_AGENT=coder\)/,
    );
    expect((await world.store.getExecution(id, '1'))!.hold).toBeNull();
  });

  it("hands over with the CLI the run's rules name: a definition turned into a custom command since the run started is still a Claude session", async () => {
    const { world, ops, run, exec } = await waiting();
    world.agents.set('coder', { command: ['./my-agent'] } as never);
    expect(await ops.openSession(run, exec, 'ann', 'answer with A')).toMatchObject({
      cli: 'claude',
      args: ['--resume', exec.sessionId],
    });
  });
});
