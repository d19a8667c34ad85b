import { describe, expect, it } from 'vitest';
import { flowsClosedAfterEach } from './testing/flows.js';

const flowFor = flowsClosedAfterEach('shop-sleep-');
const HOUR = 3_600_000;

describe('sleep() in the engine', () => {
  it('suspends as `waiting` (no person), stays so before its due time, and goes on once the store clock passes it', async () => {
    const { world, start, drive } = flowFor();
    const id = await start('sleep(3600)\nreturn "rested"');
    const due = world.clock.t + HOUR;
    expect(await drive(id)).toMatchObject({
      status: 'waiting',
      waits: [expect.objectContaining({ key: '1', waitKind: 'timer', waitUntil: due })],
    });
    expect((await world.store.getRun(id))!.status).toBe('waiting');
    world.clock.t += HOUR - 1;
    expect(await drive(id)).toMatchObject({ status: 'waiting' });
    world.clock.t += 1;
    expect(await drive(id)).toEqual({ status: 'completed', result: 'rested' });
    expect((await world.store.listEvents(id)).filter((e) => e.type === 'timer_fired')).toHaveLength(1);
  });

  it('a branch asleep while another asks a person: the run waits for the person (waiting_human); answered, it waits on time', async () => {
    const { world, start, drive } = flowFor();
    const id = await start(
      'local a, b = parallel(function() sleep(60) return "slept" end, function() return pause("Go?").continue end)\nreturn { a, b }',
    );
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      waiting: [expect.objectContaining({ key: '1/2/1' })],
    });
    expect((await world.store.getRun(id))!.status).toBe('waiting_human');
    await world.store.recordAnswer({
      runId: id,
      key: '1/2/1',
      ask: 1,
      verdict: 'approved',
      status: null,
      message: null,
      decisions: null,
      responder: 'ann',
      channel: 'cli',
    });
    expect(await drive(id)).toMatchObject({ status: 'waiting', waits: [expect.objectContaining({ key: '1/1/1' })] });
    expect((await world.store.getRun(id))!.status).toBe('waiting');
    world.clock.t += 60_000;
    expect(await drive(id)).toEqual({ status: 'completed', result: ['slept', true] });
  });
});
