import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubDelivery, shopDelivery } from '../../packages/core/src/hooks/testing/github-delivery.js';
import { ApiTokenAddedJsonSchema } from '../../packages/core/src/access/person-json.js';
import {
  HookAddedJsonSchema,
  HookDeliveredJsonSchema,
  HookJsonSchema,
} from '../../packages/core/src/operations/shapes.js';
import { killLeftovers, makeProject, runId, startWorker, until, type Project } from './harness.js';
import { http, startServe, type Served } from './serve-harness.js';

/** Webhooks through the built binary: shop hook add, then GitHub's deliveries to shop serve's POST /hooks/<name>. */
const FIXTURE = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'github-issues-labeled.json'));
const PAYLOAD = JSON.parse(FIXTURE.toString('utf8')) as { issue: { number: number; title: string } };
const EVENT_SECRET = 'event-hook-secret';

const TRIAGE = `function workflow(prompt)
  local t = context().trigger
  return { kind = t.kind, hook = t.name, issue = t.data.issue.number, label = t.data.label.name, prompt = prompt }
end
`;
const WAITER = `function workflow(prompt)
  local e = wait_event("issue.labeled", {key = "acme:widgets"})
  return { title = e.data.issue.title, by = e.sent_by }
end
`;

let p: Project;
let s: Served;
let secret: string;
let token: string;

beforeAll(async () => {
  p = makeProject();
  p.write('workflows/triage.lua', TRIAGE);
  p.write('workflows/waiter.lua', WAITER);
  const added = p.shop([
    'hook',
    'add',
    'issues',
    '--workflow',
    'triage',
    '--github',
    '--filter',
    'event=issues action=labeled label.name=agent',
    '--prompt-from',
    'issue.title',
    '--key-from',
    'repository.full_name',
    '--json',
  ]);
  expect(added.code, added.stderr).toBe(0);
  secret = HookAddedJsonSchema.parse(JSON.parse(added.stdout)).secret!;
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  const ev = ['hook', 'add', 'labeled', '--event', 'issue.labeled', '--key-from', 'repository.full_name'];
  expect(p.shop([...ev, '--secret-env', 'LABELED_SECRET']).code).toBe(0);
  expect(p.shop(['hook', 'add', 'flood', '--workflow', 'triage']).code).toBe(0);
  token = ApiTokenAddedJsonSchema.parse(JSON.parse(p.shop(['access', 'add', 'ci', '--token', '--json']).stdout)).token;
  s = await startServe(p, [], { LABELED_SECRET: EVENT_SECRET });
});

afterEach(() => killLeftovers());

const deliver = (name: string, d: { headers: Record<string, string>; body: Buffer }) =>
  http(s, `/hooks/${name}`, { method: 'POST', headers: d.headers, body: d.body.toString('utf8') });
const queuedRuns = () => p.list().filter((r) => r.spec === 'triage');

describe('shop hook list', () => {
  it('shows each hook and where its secret is, never the secret', () => {
    const r = p.shop(['hook', 'list', '--json']);
    const hooks = HookJsonSchema.array().parse(JSON.parse(r.stdout));
    expect(hooks.map((h) => [h.name, h.workflow, h.event, h.secret, h.github])).toEqual([
      ['flood', 'triage', null, 'kept', false],
      ['issues', 'triage', null, 'kept', true],
      ['labeled', null, 'issue.labeled', 'env', false],
    ]);
    expect(r.stdout + p.shop(['hook', 'list']).stdout).not.toContain(secret);
  });

  it('refuses bad input with one line and exit 2 (a name taken, a bad name or filter), nothing half made', () => {
    const before = p.shop(['hook', 'list', '--json']).stdout;
    for (const [args, line] of [
      [['issues', '--workflow', 'triage'], /^shop: a hook named "issues" exists already: remove it first/],
      [['bad/name', '--workflow', 'triage'], /^shop: the hook name "bad\/name" must be/],
      [['x', '--workflow', 'triage', '--filter', 'a==b'], /^shop: the filter condition "a==b" has ==/],
    ] as const) {
      const r = p.shop(['hook', 'add', ...args]);
      expect([r.code, r.stderr.split('\n').length]).toEqual([2, 2]);
      expect(r.stderr).toMatch(line);
    }
    expect(p.shop(['hook', 'list', '--json']).stdout).toBe(before);
  });
});

describe('POST /hooks/<name>', () => {
  it('a GitHub delivery queues one run (its trigger data the payload); its redelivery is a duplicate, nothing new', async () => {
    const d = githubDelivery(FIXTURE, secret, { event: 'issues' });
    const first = await deliver('issues', d);
    expect(first.status, first.body).toBe(202);
    const got = HookDeliveredJsonSchema.parse(JSON.parse(first.body));
    expect(got).toMatchObject({
      hook: 'issues',
      duplicate: false,
      outcome: 'run',
      delivery: d.headers['X-GitHub-Delivery'],
    });
    const again = await deliver('issues', d);
    expect(again.status, again.body).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true, outcome: 'run', run: got.run });
    expect(queuedRuns().map((r) => [r.id, r.status, r.trigger?.kind])).toEqual([[got.run, 'queued', 'webhook']]);
    await startWorker(p);
    await until('the queued run to end', () => p.status(got.run!).status === 'completed', { timeoutMs: 30_000 });
    expect(p.status(got.run!).result).toEqual({
      kind: 'webhook',
      hook: 'issues',
      issue: PAYLOAD.issue.number,
      label: 'agent',
      prompt: PAYLOAD.issue.title,
    });
  }, 60_000);

  it('a bad or missing signature is 401 and records nothing: the same delivery signed rightly is then new', async () => {
    const before = queuedRuns().length;
    const good = githubDelivery(FIXTURE, secret);
    const forged = githubDelivery(FIXTURE, 'not-the-secret', { delivery: good.headers['X-GitHub-Delivery'] });
    const { 'X-Hub-Signature-256': _, ...unsigned } = good.headers;
    for (const headers of [forged.headers, unsigned]) {
      const r = await deliver('issues', { headers, body: good.body });
      expect(r.status, r.body).toBe(401);
      expect(JSON.parse(r.body).error).toMatch(/signature|not signed/i);
    }
    // A delivery signed in the other sender's header does not count for a GitHub hook.
    const shopSigned = shopDelivery(FIXTURE, secret, { delivery: good.headers['X-GitHub-Delivery'] });
    expect((await deliver('issues', shopSigned)).status).toBe(401);
    expect(queuedRuns()).toHaveLength(before);
    const r = await deliver('issues', good);
    expect(r.status, r.body).toBe(202);
    expect(queuedRuns()).toHaveLength(before + 1);
  });

  it('a delivery the filter refuses is 200 "filtered", recorded so its redelivery is a duplicate; no run', async () => {
    const before = queuedRuns().length;
    const opened = githubDelivery({ ...PAYLOAD, action: 'opened' }, secret);
    const r = await deliver('issues', opened);
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ outcome: 'filtered', duplicate: false, run: null });
    expect(JSON.parse((await deliver('issues', opened)).body)).toMatchObject({ outcome: 'filtered', duplicate: true });
    expect(queuedRuns()).toHaveLength(before);
  });

  it('an oversized body is 413, unknown hooks 404, other content types 415: nothing recorded', async () => {
    const before = queuedRuns().length;
    const big = githubDelivery({ ...PAYLOAD, pad: 'x'.repeat(1024 * 1024) }, secret);
    const r = await deliver('issues', big);
    expect(r.status, r.body).toBe(413);
    expect((await deliver('nope', githubDelivery(FIXTURE, secret))).status).toBe(404);
    const text = githubDelivery(FIXTURE, secret);
    expect(
      (await deliver('issues', { ...text, headers: { ...text.headers, 'Content-Type': 'text/plain' } })).status,
    ).toBe(415);
    expect(queuedRuns()).toHaveLength(before);
  });

  it('an event hook wakes the run waiting on it (its key from the payload, / as :), the event data the payload', async () => {
    const started = p.shop(['run', 'waiter', 'x']);
    expect(started.code, started.stderr).toBe(7);
    const id = runId(started);
    const r = await deliver('labeled', shopDelivery(FIXTURE, EVENT_SECRET, { event: 'issues', delivery: 'd-1' }));
    expect(r.status, r.body).toBe(202);
    expect(JSON.parse(r.body)).toMatchObject({ outcome: 'event', woke: [id] });
    const resumed = p.shop(['resume', String(id)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(p.status(id).result).toEqual({ title: PAYLOAD.issue.title, by: 'hook:labeled' });
  }, 60_000);

  it('a flood is answered 429 with Retry-After while /api/inbox stays responsive', async () => {
    // 90 deliveries, 8 at a time (one address may hold only so many connections): past the hook's burst of 60, 429.
    const replies: Awaited<ReturnType<typeof deliver>>[] = [];
    const inboxMs: number[] = [];
    for (let i = 0; i < 90; i += 8) {
      const batch = Array.from({ length: Math.min(8, 90 - i) }, (_, j) =>
        deliver('flood', shopDelivery({ n: i + j }, 'wrong-secret', { delivery: `f-${i + j}` })),
      );
      const t0 = Date.now();
      const inbox = await http(s, '/api/inbox', { headers: { Authorization: `Bearer ${token}` } });
      inboxMs.push(Date.now() - t0);
      expect(inbox.status).toBe(200);
      replies.push(...(await Promise.all(batch)));
    }
    expect(Math.max(...inboxMs)).toBeLessThan(2000);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(90 - 60 - 5);
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([401, 429]));
  });
});
