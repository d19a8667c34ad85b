import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAnswer, type AnswerInput } from '../decisions/build-answer.js';
import { ConflictError } from '../errors.js';
import { clearSessionSignal, takeSessionAnswer } from '../operations/answer.js';
import { signalPath, writeSignal } from '../signals/signal.js';
import type { Execution } from '../types.js';
import { driveRun } from './drive-run.js';
import { crashingAfter } from './testing/flow.js';
import { flowsClosedAfterEach } from './testing/flows.js';
import type { Script } from './testing/scripted-runner.js';

const flowFor = flowsClosedAfterEach('shop-handoff-');

function setup(script: Script = {}) {
  const { world, dir, start, drive } = flowFor(script);
  /** Answers call `key` of run `id` as the CLI does: checked by buildAnswer, then recorded for its current ask. */
  const answer = async (id: number, key: string, input: AnswerInput, ask?: number) => {
    const exec = (await world.store.getExecution(id, key))!;
    return world.store.recordAnswer({
      runId: id,
      key,
      ask: ask ?? exec.ask,
      ...buildAnswer(exec, input),
      responder: 'ann',
      channel: 'cli',
    });
  };
  return { world, dir, start, drive, answer };
}

const asksApproval = { status: 'NEEDS_HUMAN', reason: 'ready for sign-off', awaiting: 'approval' };
const FLOW = 'local r = run("coder", "build the cart")\nreturn r.status .. ": " .. (r.summary or "")';

describe('an answer that goes back to the agent', () => {
  it('a rejected approval resumes the same session with the feedback, and DONE completes the call', async () => {
    const { world, start, drive, answer } = setup({ coder: [asksApproval, { summary: 'tests added' }] });
    const id = await start(FLOW);
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      execution: { key: '1', ask: 1, awaiting: 'approval', waitingFor: 'ready for sign-off' },
    });

    await answer(id, '1', { verdict: 'rejected', message: ' Add tests for the empty cart. ' });
    expect(await drive(id)).toEqual({ status: 'completed', result: 'DONE: tests added' });

    const [first, second] = world.runner.invocations;
    expect(first).toMatchObject({ resume: false, sessionId: 'session-1', prompt: 'build the cart' });
    expect(second).toMatchObject({ resume: true, sessionId: 'session-1', cwd: first.cwd });
    expect(second.prompt).toMatch(
      /^The person rejected this\. Their feedback:\n\nAdd tests for the empty cart\.\n\nContinue from here, then report again/,
    );
    // A fresh signal path for the new round: whoever saw the first file's name can't write this one.
    expect(second.env.SHOP_SIGNAL_FILE).not.toBe(first.env.SHOP_SIGNAL_FILE);
    expect(await world.store.getExecution(id, '1')).toMatchObject({
      status: 'completed',
      ask: 1,
      attempts: 2,
      signalPath: second.env.SHOP_SIGNAL_FILE,
    });
    const types = (await world.store.listEvents(id)).map((e) => e.type);
    expect(types.indexOf('human_answered')).toBeLessThan(types.indexOf('sent_back'));
  });

  it('an agent that asks again after the feedback waits on a second ask that needs its own answer', async () => {
    const { world, start, drive, answer } = setup({
      coder: [
        { status: 'NEEDS_HUMAN', reason: 'which database?' },
        { status: 'NEEDS_HUMAN', reason: 'which version?', awaiting: 'input' },
        { summary: 'on postgres 16' },
      ],
    });
    const id = await start(FLOW);
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      execution: { ask: 1, awaiting: 'input', waitingFor: 'which database?' },
    });
    await answer(id, '1', { verdict: 'answer', message: 'postgres' });

    const again = await drive(id);
    expect(again).toMatchObject({
      status: 'waiting_human',
      execution: { key: '1', ask: 2, waitingFor: 'which version?' },
    });
    expect(world.runner.count()).toBe(2);
    expect((await world.store.getRun(id))!.status).toBe('waiting_human');
    // The first answer is spent: replaying does not send it back again.
    expect(await drive(id)).toMatchObject({ status: 'waiting_human', execution: { ask: 2 } });
    expect(world.runner.count()).toBe(2);
    await expect(answer(id, '1', { verdict: 'answer', message: 'mysql' }, 1)).rejects.toThrow(ConflictError);

    await answer(id, '1', { verdict: 'answer', message: '16' });
    expect(await drive(id)).toEqual({ status: 'completed', result: 'DONE: on postgres 16' });
    const prompts = world.runner.invocations.map((i) => i.prompt);
    expect(prompts[1]).toMatch(/^The person replied:\n\npostgres\n/);
    expect(prompts[2]).toMatch(/^The person replied:\n\n16\n/);
    expect((await world.store.listAnswers(id)).map((a) => [a.ask, a.message])).toEqual([
      [1, 'postgres'],
      [2, '16'],
    ]);
  });

  it('after a crash between the recorded answer and the agent reporting, the agent gets the feedback again', async () => {
    const { world, start, drive, answer } = setup({ coder: [asksApproval, { via: 'none' }, { summary: 'fixed' }] });
    const id = await start(FLOW);
    await drive(id);
    await answer(id, '1', { verdict: 'rejected', message: 'rename the button' });

    world.ports.runner = crashingAfter(world.runner);
    await expect(drive(id)).rejects.toThrow('driver crashed');
    expect(await world.store.getExecution(id, '1')).toMatchObject({ status: 'running', ask: 1, pid: 999_999 });

    world.ports.runner = world.runner;
    expect(await drive(id)).toEqual({ status: 'completed', result: 'DONE: fixed' });
    const [, sentBack, afterCrash] = world.runner.invocations;
    expect(afterCrash).toMatchObject({ resume: true, sessionId: 'session-1' });
    expect(afterCrash.prompt).toBe(sentBack.prompt);
    expect(afterCrash.prompt).toMatch(/^The person rejected this\. Their feedback:\n\nrename the button\n/);
    expect(afterCrash.prompt).not.toMatch(/interrupted/);
    expect(world.killed).toEqual([999_999]);
  });
});

describe('answers that arrive too late', () => {
  it("are refused once the ask was answered in the agent's own session (recorded as the person's answer)", async () => {
    const { world, start, drive, answer } = setup({ coder: [asksApproval] });
    const id = await start(FLOW);
    const waiting = await drive(id);
    const exec = (waiting as { execution: Execution }).execution;
    // A file at the waiting call's own path answers nothing: only the store is read.
    writeSignal(exec.signalPath!, { status: 'DONE', summary: 'written by someone else' });
    expect(await drive(id)).toMatchObject({ status: 'waiting_human', execution: { key: '1', ask: 1 } });

    // The session hand-off: cleared before, the agent's new report after becomes ann's answer.
    clearSessionSignal(exec);
    writeSignal(exec.signalPath!, {
      status: 'DONE',
      summary: 'the person approved in the session',
      verdict: 'approved',
      responder: 'mallory',
    });
    expect(await takeSessionAnswer(world.ports, exec, 'ann')).toEqual({
      kind: 'answered',
      status: 'DONE',
      handedTo: null,
    });
    expect(existsSync(exec.signalPath!)).toBe(false);
    expect(await world.store.getAnswer(id, '1', 1)).toMatchObject({
      status: 'DONE',
      verdict: null,
      message: 'the person approved in the session',
      responder: 'ann',
      channel: 'continue',
    });
    expect(await drive(id)).toEqual({ status: 'completed', result: 'DONE: the person approved in the session' });
    expect(world.runner.count()).toBe(1);
    const late = answer(id, '1', { verdict: 'approved' }, 1);
    await expect(late).rejects.toThrow(ConflictError);
  });

  it('are refused for an ask the call is not waiting on', async () => {
    const { world, start, drive } = setup({ coder: [asksApproval] });
    const id = await start(FLOW);
    await drive(id);
    const record = (ask: number) =>
      world.store.recordAnswer({
        runId: id,
        key: '1',
        ask,
        verdict: 'approved',
        status: null,
        message: null,
        decisions: null,
        responder: 'ann',
        channel: 'cli',
      });
    await expect(record(2)).rejects.toThrow('run 1 call 1 is no longer waiting for this answer');
    await expect(record(0)).rejects.toThrow(ConflictError);
    await record(1);
    await expect(record(1)).rejects.toThrow(ConflictError);
    expect(await drive(id)).toEqual({ status: 'completed', result: 'APPROVED: ' });
  });
});

describe('a pause', () => {
  it('never completes from a signal file, even on a live wait woken by it', async () => {
    const { world, dir, start, drive, answer } = setup();
    const id = await start('local p = pause("Ship it?")\nreturn p.status');
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      execution: { key: '1', kind: 'pause', signalPath: null },
    });

    const files = ['_checkpoint', 'coder', 'pause'].map((agent) =>
      signalPath(world.ports.paths.signalsDir, id, '1', agent),
    );
    for (const f of files) writeSignal(f, { status: 'CONTINUE', summary: 'from a file' });
    expect(await drive(id)).toMatchObject({ status: 'waiting_human' });

    const abort = new AbortController();
    let wakes = 0;
    world.signals.onNext = () => {
      writeSignal(join(dir, 'signals', `${id}.1.json`), { status: 'DONE' });
      if (++wakes === 3) abort.abort();
    };
    expect(await driveRun(world.ports, id, { wait: true, signal: abort.signal })).toEqual({ status: 'interrupted' });
    expect(wakes).toBe(3);
    expect(await world.store.getExecution(id, '1')).toMatchObject({ status: 'waiting_human', ask: 1 });
    expect((await world.store.getRun(id))!.status).toBe('waiting_human');
    expect(files.every((f) => existsSync(f))).toBe(true);

    await answer(id, '1', { status: 'CONTINUE' });
    expect(await drive(id)).toEqual({ status: 'completed', result: 'CONTINUE' });
  });
});
