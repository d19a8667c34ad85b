import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, runId, until } from './harness.js';

afterEach(killLeftovers);

/**
 * A lease is judged by the store's clock in every read command. Here every shop process's
 * clock (the store's and the engine's) runs an hour behind this machine's (SHOP_CLOCK_FILE):
 * a run its driver is working on is running to `shop list`, `shop status` and `shop replay` —
 * not interrupted, as a command judging the lease by the machine's clock would call it.
 */
describe('read commands judge a live driver by the store clock', () => {
  it('a run at work is running in list, status and replay (--json), with no driver gone', async () => {
    const p = makeProject();
    const clock = join(p.dir, 'clock');
    writeFileSync(clock, '-3600');
    p.env.SHOP_CLOCK_FILE = clock;
    p.write('agents/coder.md', '---\n---\nYou write code.\n');
    p.write(
      'workflows/once.lua',
      'function workflow(prompt)\n  local r = run("coder", { prompt = prompt })\n  return r.status\nend\n',
    );
    p.scenario({
      agents: {
        coder: [
          {
            status: 'DONE',
            summary: 'done',
            pace_ms: 1500,
            stream: [{ text: 'Looking.' }, { text: 'Still looking.' }, { text: 'Nearly there.' }],
          },
        ],
      },
    });
    const bg = p.spawnShop(['run', 'once', 'x']);
    await until('the run id', () => /run \d+ started/.test(bg.output()));
    const id = runId(bg.output());
    await until('its agent at work', () => p.status(id).executions[0]?.status === 'running');

    const [listed] = JSON.parse(p.shop(['list', '--json']).stdout) as {
      id: number;
      status: string;
      driver_gone_since: string | null;
    }[];
    expect([listed.id, listed.status, listed.driver_gone_since]).toEqual([id, 'running', null]);
    expect(p.status(id)).toMatchObject({ status: 'running', driver_gone_since: null });
    const [replayed] = JSON.parse(p.shop(['replay', String(id), '--json']).stdout) as { status: string }[];
    expect(replayed.status).toBe('running');
    expect(await bg.exited).toBe(0);
  });
});
