import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ActionJsonSchema, ClaimJsonSchema, InboxRowJsonSchema } from '../../packages/core/src/operations/shapes.js';
import {
  killLeftovers,
  lines,
  makeProject,
  runId,
  startWorker,
  stopWorker,
  trail,
  until,
  type Project,
} from './harness.js';
import { withClock } from './clock-file.js';

/** shop claim: "I'm on it" — shown everywhere asks are, and reminders wait while it lasts. */

afterEach(killLeftovers);

const PAUSE =
  'function workflow(prompt)\n  local r = pause("Ship it?")\n  return { cont = r.continue, by = r.responder }\nend\n';

function waitingRun(p: Project, spec: string): number {
  const r = p.shop(['run', spec]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  return runId(r);
}

/** A command notifier that appends "<event> <run>/<call>" to notices.txt. */
function notifier(p: Project): string {
  const file = join(p.dir, 'team.sh');
  writeFileSync(file, `#!/bin/sh\necho "$SHOP_NOTIFY_EVENT $SHOP_RUN_ID/$SHOP_CALL" >> "${p.dir}/notices.txt"\n`);
  chmodSync(file, 0o755);
  return file;
}
const notices = (p: Project) => (existsSync(join(p.dir, 'notices.txt')) ? lines(p.read('notices.txt')) : []);
const inbox = (p: Project) =>
  (JSON.parse(p.shop(['inbox', '--json']).stdout) as unknown[]).map((r) => InboxRowJsonSchema.strict().parse(r));
const types = (p: Project, id: number, ...of: string[]) =>
  trail(p, id)
    .map((e) => e.type)
    .filter((t) => of.includes(t));

describe('shop claim', () => {
  it('claims an ask: inbox, status and --json show who; someone else is refused naming them; released, it is gone', () => {
    const p = makeProject();
    p.write('workflows/ship.lua', PAUSE);
    const id = waitingRun(p, 'ship');
    const h = `${id}.1`;

    const claimed = p.shop(['claim', h, '--by', 'ann']);
    expect(claimed.stderr).toBe('');
    expect(claimed.code).toBe(0);
    expect(lines(claimed.stdout)[0]).toBe(`${h}: Ship it?`);
    expect(lines(claimed.stdout)[1]).toMatch(
      /^Claimed by ann \(cli\) since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \(.+ ago\); it ages out at .+; reminders and escalation wait\. Let go with: shop claim [\d.]+ --release$/,
    );

    const [row] = inbox(p);
    expect(row.claimed_by).toMatchObject({ by: 'ann', channel: 'cli' });
    expect(Date.parse(row.claimed_by!.until) - Date.parse(row.claimed_by!.since)).toBe(3_600_000);
    const text = lines(p.shop(['inbox']).stdout);
    expect(text[0].split(/\s{2,}/)).toContain('CLAIMED');
    expect(text[1].split(/\s{2,}/)[6]).toBe('ann');
    expect(p.status(id).pending!.claimed_by).toMatchObject({ by: 'ann', channel: 'cli' });
    expect(p.shop(['status', String(id)]).stdout).toMatch(
      /^Claimed by ann \(cli\) since .+ \(.+ ago\); it ages out at /m,
    );

    const refused = p.shop(['claim', h, '--by', 'bob']);
    expect(refused.code).toBe(6);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      new RegExp(
        `^shop: ${h.replace('.', '\\.')} is claimed by ann \\(cli\\) since .+; to take it over: shop claim ${h} --release --force, then shop claim ${h}\\n$`,
      ),
    );
    expect(p.shop(['claim', h, '--release', '--by', 'bob']).code).toBe(6);

    // Claiming again renews one's own claim; --json is the documented shape.
    const again = ClaimJsonSchema.parse(JSON.parse(p.shop(['claim', h, '--by', 'ann', '--json']).stdout));
    expect(again).toMatchObject({
      handle: h,
      run: id,
      key: '1',
      ask: 1,
      question: 'Ship it?',
      claimed_by: { by: 'ann' },
      released: null,
    });

    const released = p.shop(['claim', h, '--release', '--by', 'ann']);
    expect(released.code).toBe(0);
    expect(released.stdout).toBe(`released ann's claim on ${h}; its reminders and escalation go on\n`);
    expect(inbox(p)[0].claimed_by).toBeNull();
    expect(p.shop(['status', String(id)]).stdout).not.toMatch(/Claimed by/);
    expect(p.shop(['claim', h, '--release', '--by', 'ann']).stdout).toBe(
      `${h} was not claimed; nothing to let go of\n`,
    );

    // Taken over: --release --force lets go of someone else's claim.
    expect(p.shop(['claim', h, '--by', 'ann']).code).toBe(0);
    expect(p.shop(['claim', h, '--release', '--force', '--by', 'bob']).stdout).toBe(
      `released ann's claim on ${h}; its reminders and escalation go on\n`,
    );
    expect(p.shop(['claim', h, '--by', 'bob']).code).toBe(0);
    expect(types(p, id, 'claimed', 'claim_released')).toEqual([
      'claimed',
      'claimed',
      'claim_released',
      'claimed',
      'claim_released',
      'claimed',
    ]);
  });

  it('an answered ask cannot be claimed (exit 6 naming who answered); an unknown one is exit 5; bad input exit 2', () => {
    const p = makeProject();
    p.write('workflows/ship.lua', PAUSE);
    const id = waitingRun(p, 'ship');
    expect(p.shop(['claim', `${id}.1`, '--by', 'ann']).code).toBe(0);
    // The claim goes with the answer: the ask is closed.
    expect(p.shop(['approve', `${id}.1`, '--by', 'carol']).code).toBe(0);
    const closed = p.shop(['claim', `${id}.1`, '--by', 'bob']);
    expect(closed.code).toBe(6);
    expect(closed.stderr).toMatch(
      new RegExp(
        `^shop: ${id}\\.1 \\(run ${id} call 1\\) was already answered approved by carol \\(cli\\) at .+; nothing is open now`,
      ),
    );
    expect(p.shop(['claim', `${id}.7`]).code).toBe(5);
    expect(p.shop(['claim', '999.1']).code).toBe(5);
    expect(p.shop(['claim', 'ship']).stderr).toBe(
      'shop: "ship" is not an ask handle (such as 33.4, as shop inbox shows it)\n',
    );
    expect(p.shop(['claim']).code).toBe(2);
    expect(p.shop(['claim', `${id}.1`, '--force']).stderr).toMatch(/^shop: --force goes with --release/);
    const agent = p.shop(['claim', `${id}.1`], { env: { SHOP_AGENT: 'coder' } });
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/cannot run inside an agent step/);
  });
});

describe("claims in the acting commands' --json", () => {
  it('an answer leaves the other ask open with its claim, as approve --json shows', () => {
    const p = makeProject();
    p.write(
      'workflows/two.lua',
      `function workflow(prompt)
  local a, b = parallel(function() return pause("Ship web?").continue end, function() return pause("Ship api?").continue end)
  return { a, b }
end\n`,
    );
    const id = waitingRun(p, 'two');
    const [web, api] = inbox(p).map((r) => r.handle);
    expect(p.shop(['claim', api, '--by', 'ann']).code).toBe(0);
    const r = p.shop(['approve', web, '--by', 'bob', '--json']);
    expect(r.code).toBe(3);
    const acted = ActionJsonSchema.parse(JSON.parse(r.stdout));
    expect(acted.run).toBe(id);
    expect(acted.asks.map((a) => [a.handle, a.claimed_by?.by ?? null])).toEqual([[api, 'ann']]);
  });
});

describe('reminders of a claimed ask (fast-forwarded clock, shop watch)', () => {
  it('no reminder while claimed; one as soon as it is released', async () => {
    const p = makeProject();
    const advance = withClock(p);
    p.write('workflows/r.lua', `config{ notify = { "command:${notifier(p)}" }, remind_after = 600 }\n${PAUSE}`);
    const id = waitingRun(p, 'r');
    expect(p.shop(['claim', `${id}.1`, '--by', 'ann']).code).toBe(0);
    const w = await startWorker(p);
    await until('the run to be held', () => w.output().includes(`run ${id} (r): held here`));
    advance(700);
    await until('the reminder to be put off', () => types(p, id, 'timer_put_off').length === 1);
    expect(notices(p)).toEqual([`waiting ${id}/1`]);
    expect(p.shop(['claim', `${id}.1`, '--release', '--by', 'ann']).code).toBe(0);
    await until('the reminder', () => notices(p).length === 2);
    expect(notices(p)).toEqual([`waiting ${id}/1`, `reminder ${id}/1`]);
    expect(types(p, id, 'claimed', 'timer_put_off', 'claim_released', 'reminded')).toEqual([
      'claimed',
      'timer_put_off',
      'claim_released',
      'reminded',
    ]);
    expect(await stopWorker(w)).toBe(0);
  });

  it('the reminder comes once the claim ages out (config claim_timeout)', async () => {
    const p = makeProject();
    const advance = withClock(p);
    p.write(
      'workflows/r.lua',
      `config{ notify = { "command:${notifier(p)}" }, remind_after = 600, claim_timeout = 1200 }\n${PAUSE}`,
    );
    const id = waitingRun(p, 'r');
    expect(p.shop(['claim', `${id}.1`, '--by', 'ann']).code).toBe(0);
    const w = await startWorker(p);
    await until('the run to be held', () => w.output().includes(`run ${id} (r): held here`));
    advance(700);
    await until('the reminder to be put off', () => types(p, id, 'timer_put_off').length === 1);
    expect(notices(p)).toEqual([`waiting ${id}/1`]);
    advance(1300);
    await until('the reminder', () => notices(p).length === 2);
    expect(inbox(p)[0].claimed_by).toBeNull();
    expect(types(p, id, 'claimed', 'timer_put_off', 'reminded')).toEqual(['claimed', 'timer_put_off', 'reminded']);
    expect(await stopWorker(w)).toBe(0);
  });
});
