import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventSentJsonSchema, SentEventJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, until, type Project } from './harness.js';
import { addPerson, eventUrlToken, http, signIn, startServe, type Served } from './serve-harness.js';
import { GATE } from './web-pages.js';

/** Events into shop serve: POST /api/events for a signed-in person, and event URLs (/e/<token>) for machines. */
let p: Project;
let s: Served;
let clock: string;
let ann: { cookie: string; csrf: string };

beforeAll(async () => {
  p = makeProject();
  p.write('workflows/gate.lua', GATE);
  clock = join(p.dir, 'clock');
  writeFileSync(clock, '0');
  s = await startServe(p, ['--public-url', 'http://127.0.0.1'], { SHOP_CLOCK_FILE: clock });
  ann = await signIn(s, addPerson(p, 'ann'));
});

const sentEvents = () => SentEventJsonSchema.array().parse(JSON.parse(p.shop(['event', 'list', '--json']).stdout));
const json = { 'Content-Type': 'application/json' };

describe('POST /api/events', () => {
  const post = (body: unknown, headers: Record<string, string> = { 'X-CSRF-Token': ann.csrf }, cookie = ann.cookie) =>
    http(s, '/api/events', {
      method: 'POST',
      cookie,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { ...json, ...headers },
    });

  it("records a signed-in person's event (201); the same id again is 200, the first event, nothing new", async () => {
    const first = await post({ name: 'review.done', key: 'pr-7', data: { approved: true }, id: 'web-1' });
    expect(first.status, first.body).toBe(201);
    expect(EventSentJsonSchema.parse(JSON.parse(first.body))).toMatchObject({
      duplicate: false,
      woke: [],
      event: {
        name: 'review.done',
        key: 'pr-7',
        data: { approved: true },
        sent_by: 'ann',
        channel: 'web',
        run: null,
        send_id: 'web-1',
      },
    });
    const again = await post({ name: 'review.done', data: { approved: false }, id: 'web-1' });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ ...JSON.parse(first.body), duplicate: true });
    expect(sentEvents().filter((e) => e.send_id === 'web-1')).toHaveLength(1);
  });

  it('refuses without a session (401), without the CSRF token or from another site (403), bad input (400), a body past its bound (413): nothing recorded', async () => {
    const before = sentEvents().length;
    expect((await post({ name: 'x' }, {}, '')).status).toBe(401);
    expect((await post({ name: 'x' }, {})).status).toBe(403);
    expect(
      (
        await post(
          { name: 'x' },
          { 'X-CSRF-Token': ann.csrf, Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site' },
        )
      ).status,
    ).toBe(403);
    const badName = await post({ name: 'has space' });
    expect([badName.status, JSON.parse(badName.body).error]).toEqual([
      400,
      'the event name "has space" holds a character other than A-Z a-z 0-9 _ . : -; give a word such as ci.finished',
    ]);
    expect((await post({ name: 'x', extra: 1 })).status).toBe(400);
    expect((await post('{not json')).status).toBe(400);
    const big = await post({ name: 'x', data: 'y'.repeat(1024 * 1024) });
    expect([big.status, JSON.parse(big.body).error]).toEqual([
      400,
      "data is larger than 1 MiB, the most an event's data may hold; send less (a link to the rest)",
    ]);
    expect((await post({ name: 'x', data: 'y'.repeat(2 * 1024 * 1024) })).status).toBe(413);
    expect(sentEvents()).toHaveLength(before);
  });
});

describe('event URLs', () => {
  const postUrl = (token: string, body?: string, headers: Record<string, string> = json) =>
    http(s, `/e/${token}`, { method: 'POST', body, headers });

  it('sends its event to its run once: reuse is 410, nothing recorded', async () => {
    const id = runId(p.shop(['run', 'gate', 'v1']));
    const token = await eventUrlToken(p, { runId: id, key: '2', name: 'deploy.done', eventKey: 'prod' });
    const ok = await postUrl(token, '{"version": "1.4.2"}');
    expect(ok.status, ok.body).toBe(201);
    expect(EventSentJsonSchema.parse(JSON.parse(ok.body)).event).toMatchObject({
      name: 'deploy.done',
      key: 'prod',
      data: { version: '1.4.2' },
      run: id,
      channel: 'url',
    });
    const reused = await postUrl(token, '{"version": "9"}');
    expect(reused.status).toBe(410);
    expect(JSON.parse(reused.body).error).toMatch(
      /^this event URL was used at .+; it sends one event, once — nothing new was recorded$/,
    );
    expect(sentEvents().filter((e) => e.run === id)).toHaveLength(1);
    // No body: no data.
    const bare = await eventUrlToken(p, { runId: id, key: '3', name: 'deploy.done', eventKey: null });
    expect((await http(s, `/e/${bare}`, { method: 'POST' })).status).toBe(201);
    expect(sentEvents().find((e) => e.send_id === `url:${id}.3`)).toMatchObject({ data: null, key: null });
  });

  it('a forged URL is 400, an expired one 410 (by the Clock), a post from another site 403: nothing recorded', async () => {
    const id = runId(p.shop(['run', 'gate', 'v2']));
    const token = await eventUrlToken(p, { runId: id, key: '2', name: 'deploy.done', eventKey: null }, 60_000);
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    for (const bad of [forged, 'nonsense', `${token}x`]) expect((await postUrl(bad, '{}')).status).toBe(400);
    expect(
      (await postUrl(token, '{}', { ...json, Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site' })).status,
    ).toBe(403);
    writeFileSync(clock, '120');
    try {
      // The server reads the clock file at most every 100 ms: ask until it has.
      const expired = await until(
        'the server to read the moved clock',
        async () => {
          const r = await postUrl(token, '{}');
          return r.status === 410 && r;
        },
        5_000,
      );
      expect(expired.status).toBe(410);
      expect(JSON.parse(expired.body).error).toMatch(/expired at .+; nothing was recorded$/);
    } finally {
      writeFileSync(clock, '0');
    }
    expect(sentEvents().filter((e) => e.run === id)).toEqual([]);
  });
});

describe('event_url in a workflow', () => {
  it('gives a URL under the public address (the same on replay) whose POST the waiting run takes', async () => {
    p.write(
      'workflows/deploy.lua',
      [
        'function workflow(prompt)',
        '  local url = event_url("deploy.done", {key = "prod", expires = 3600})',
        '  local e = wait_event("deploy.done", {key = "prod"})',
        '  return { url = url, version = e.data.version, channel = e.channel }',
        'end',
      ].join('\n'),
    );
    const started = p.shop(['run', 'deploy', 'x']);
    expect(started.code, started.stderr).toBe(7);
    const id = runId(started);
    const url = p.status(id).executions.find((e) => e.kind === 'event_url')!.result as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1\/e\/[A-Za-z0-9_.-]+$/);
    const posted = await http(s, url.replace('http://127.0.0.1', ''), {
      method: 'POST',
      body: '{"version": "2.0.1"}',
      headers: json,
    });
    expect(posted.status, posted.body).toBe(201);
    expect(JSON.parse(posted.body)).toMatchObject({ woke: [id], event: { run: id, channel: 'url', key: 'prod' } });
    const resumed = p.shop(['resume', String(id)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(p.status(id).result).toEqual({ url, version: '2.0.1', channel: 'url' });
    expect(
      (await http(s, url.replace('http://127.0.0.1', ''), { method: 'POST', body: '{}', headers: json })).status,
    ).toBe(410);
  });

  it('without a public address the call fails, saying how to record one', () => {
    const q = makeProject();
    q.write('workflows/deploy.lua', 'function workflow(prompt)\n  return event_url("deploy.done")\nend\n');
    const r = q.shop(['run', 'deploy', 'x']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      'event_url needs the address people and machines reach shop serve at; record it once with: shop serve --public-url https://shop.example.com',
    );
  });
});
