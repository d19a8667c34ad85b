import { describe, expect, it } from 'vitest';
import { driveRun } from '../engine/drive-run.js';
import { flowsClosedAfterEach } from '../engine/testing/flows.js';
import { recordAnswer, resumeAfterAnswer } from './answer.js';

const setup = flowsClosedAfterEach('shop-answer-race-');

describe('an answer given while no driver holds the run', () => {
  it('a worker that takes the run before the answering process can takes the answer in: handed to it, not a conflict', async () => {
    const { world, start } = setup();
    const id = await start('local go = pause("Ship?")\nreturn go.responder');
    expect(await driveRun(world.ports, id, { wait: false })).toMatchObject({ status: 'waiting_human' });
    const exec = (await world.store.getExecution(id, '1'))!;
    const { handedTo } = await recordAnswer(world.ports, exec, { verdict: 'approved' }, 'cli', 'ben');
    expect(handedTo).toBeNull();
    // Between the answer and this process's claim, a worker on another machine takes the run (its lease live).
    expect(
      await world.store.claimRun(id, { token: 'worker', host: 'box-2', pid: 7, pidStart: '7' }, 60_000, null),
    ).toBeTruthy();
    expect(await resumeAfterAnswer(world.ports, id, null, { wait: false })).toEqual({
      handedTo: expect.objectContaining({ token: 'worker', host: 'box-2' }),
    });
  });
});
