import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareExpect } from './expect.js';
import { parseFixture, type Fixture } from './fixture.js';
import { simulate } from './simulate.js';

const feature = readFileSync(fileURLToPath(new URL('../../../../workflows/feature.lua', import.meta.url)), 'utf8');
const fixture = (raw: unknown): Fixture => {
  const r = parseFixture(raw);
  if ('errors' in r) throw new Error(r.errors.join('; '));
  return r.fixture;
};

describe('simulate()', () => {
  it('runs feature.lua on scripted agents and people, fast, on the real engine', async () => {
    const sim = await simulate(
      feature,
      'feature',
      fixture({
        prompt: 'add a login page',
        agents: {
          architect: [{ summary: 'a plan' }],
          coder: [{ summary: 'v1' }, { summary: 'v2' }],
          reviewer: [{ status: 'CHANGES_REQUESTED', summary: 'tests' }, { status: 'APPROVED' }],
          deployer: [{ summary: 'shipped' }],
        },
        humans: [{ pause: 'Approve deployment?', verdict: 'approve', message: 'ok' }],
      }),
    );
    expect(sim).toMatchObject({ status: 'completed', result: { shipped: true, rounds: 2, deploy: 'shipped' } });
    expect(sim.calls).toEqual(['architect', 'coder', 'reviewer', 'coder', 'reviewer', '_checkpoint', 'deployer']);
    expect(sim.path).toContain('  [6] tester: approve "ok"');
  });

  it('a sleep takes no time: the clock moves to its due time and the run goes on', async () => {
    const started = Date.now();
    const sim = await simulate(
      'function workflow(p)\n  sleep(3600)\n  sleep_until(1)\n  return "rested"\nend\n',
      'nap',
      fixture({ agents: {} }),
    );
    expect(sim).toMatchObject({ status: 'completed', result: 'rested', calls: ['sleep', 'sleep'] });
    expect(sim.path.filter((l) => l.includes('clock moved'))).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names the call with no scripted answer, and an agent asked more often than scripted', async () => {
    const noPerson = await simulate(
      feature,
      'feature',
      fixture({ agents: { architect: [{}], coder: [{}], reviewer: [{ status: 'APPROVED' }] } }),
    );
    expect(noPerson).toMatchObject({
      status: 'waiting_human',
      reason: 'no scripted answer for call 4 (_checkpoint: Approve deployment?)',
    });
    const shortCoder = await simulate(
      feature,
      'feature',
      fixture({ agents: { architect: [{}], coder: [{}], reviewer: [{ status: 'CHANGES_REQUESTED' }] } }),
    );
    expect(shortCoder).toMatchObject({
      status: 'failed',
      reason: 'the fixture has 1 step(s) for coder; call 4 is its invocation 2',
    });
  });

  it('samples verdicts by seed: the same seed, the same outcomes', async () => {
    const mixed = (seed: number) =>
      fixture({
        seed,
        agents: { architect: [{}], coder: [{}], reviewer: [{ status: 'APPROVED' }], deployer: [{}] },
        humans: [{ ask: '*', verdict: { approve: 0.5, reject: 0.5 }, message: 'why not' }],
      });
    const outcomes = async () =>
      Promise.all([1, 2, 3, 4, 5, 6].map(async (s) => (await simulate(feature, 'feature', mixed(s))).status));
    const first = await outcomes();
    expect(await outcomes()).toEqual(first);
    expect(new Set(first)).toEqual(new Set(['completed', 'stuck']));
  });

  it('compares against expect with a readable diff', async () => {
    const sim = await simulate(
      feature,
      'feature',
      fixture({
        agents: { architect: [{}], coder: [{}], reviewer: [{ status: 'APPROVED' }], deployer: [{ summary: 'x' }] },
        humans: [{ ask: '*', verdict: 'approve' }],
      }),
    );
    expect(
      compareExpect(
        {
          status: 'completed',
          result: { shipped: true, rounds: 1, deploy: 'x' },
          calls: ['architect', 'coder', 'reviewer', '_checkpoint', 'deployer'],
        },
        sim,
      ),
    ).toEqual([]);
    expect(
      compareExpect(
        {
          status: ['stuck', 'completed'],
          result: { shipped: false, rounds: 1, deploy: 'x' },
          calls: ['architect', 'reviewer'],
        },
        sim,
      ),
    ).toEqual([
      'result:\n    {\n  -   "shipped": false,\n  +   "shipped": true,\n      "rounds": 1,\n      "deploy": "x"\n    }',
      'calls: differ at call 2: expected reviewer, got coder\n  expected: architect, reviewer\n  got:      architect, coder, reviewer, _checkpoint, deployer',
    ]);
    expect(compareExpect({ status: 'stuck' }, sim)).toEqual(['status: expected stuck, got completed']);
  });

  it('fixture errors name the path', () => {
    expect(
      parseFixture({
        agents: { coder: [{ status: 'done' }] },
        humans: [{ call: '1', pause: 'x', verdict: 'approve' }],
        extra: 1,
      }),
    ).toEqual({
      errors: [
        'agents.coder.0.status: must be an UPPER_CASE status such as DONE or NEEDS_HUMAN',
        'humans.0: give exactly one of call, pause, ask',
        "(top): unknown key 'extra'",
      ],
    });
  });
});
