import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, runId, until } from './harness.js';
import { addPerson, signIn, startServe, type Served } from './serve-harness.js';

/**
 * Live pages hear of changes that no row records: a claim that ages out, a run whose driver's
 * lease runs out. The clock moves (SHOP_CLOCK_FILE), nothing is written, and the event stream
 * still names the run, so an open inbox drops the claim without a reload.
 */

afterEach(killLeftovers);

function stream(s: Served, cookie: string) {
  const state = { text: '' };
  const req = request(
    { host: '127.0.0.1', port: s.port, path: '/events', headers: { Host: `127.0.0.1:${s.port}`, Cookie: cookie } },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => (state.text += d));
    },
  );
  req.end();
  return { state, close: () => req.destroy() };
}

describe('shop serve: changes by time alone', () => {
  it('a claim that ages out is told to open pages, naming its run', async () => {
    const p = makeProject();
    const clock = join(p.dir, 'clock');
    writeFileSync(clock, '0');
    p.env.SHOP_CLOCK_FILE = clock;
    p.write(
      'workflows/gate.lua',
      'config{ claim_timeout = 600 }\nfunction workflow(prompt)\n  return pause("Ship it?").continue\nend\n',
    );
    const r = p.shop(['run', 'gate']);
    expect(r.code, r.stderr).toBe(3);
    const id = runId(r);
    expect(p.shop(['claim', `${id}.1`, '--by', 'ann']).code).toBe(0);
    const s = await startServe(p);
    const ann = await signIn(s, addPerson(p, 'ann'));
    const live = stream(s, ann.cookie);
    try {
      await until('the stream to open', () => live.state.text.startsWith('retry:'));
      // The run was touched moments ago, so a first look may name it; past the feed's 2 s margin, quiet.
      await new Promise((r) => setTimeout(r, 3_000));
      live.state.text = '';
      // Past the claim's 10 minutes: the ask is nobody's again, though no row changed.
      writeFileSync(clock, '900');
      await until('a change naming the run', () => new RegExp(`"runs":\\[[\\d,]*\\b${id}\\b`).test(live.state.text));
      expect(JSON.parse(p.shop(['inbox', '--json']).stdout)[0].claimed_by).toBeNull();
    } finally {
      live.close();
    }
  });
});
