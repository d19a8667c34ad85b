import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiTokenAddedJsonSchema } from '../../packages/core/src/access/person-json.js';
import { RunDetailJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { dialogs, newPage, screenshot } from './browser.js';
import { killLeftovers, makeProject, startWorker, stopWorker, trail, until, type Project } from './harness.js';
import { addPerson, http, startServe, type Served } from './serve-harness.js';

/**
 * Starting runs from afar: POST /api/runs with an API token (idempotent by id), and the web's
 * "Start a run" form in a real Chromium (at desktop and phone width, with and without
 * JavaScript). A start is queued for the workers; the run's page follows it to its end live.
 */
afterEach(killLeftovers);
let p: Project;
let s: Served;
let token: string;

const HELLO = `function workflow(prompt)
  local t = context().trigger
  sleep(1)
  return prompt .. " from " .. t.kind .. " by " .. tostring(t.by) .. (t.data and (" pr " .. t.data.pr) or "")
end
`;

beforeAll(async () => {
  p = makeProject();
  p.write('workflows/hello.lua', HELLO);
  token = ApiTokenAddedJsonSchema.parse(JSON.parse(p.shop(['access', 'add', 'ci', '--token', '--json']).stdout)).token;
  s = await startServe(p);
});

const postRuns = (body: unknown, auth: string | null = token) =>
  http(s, '/api/runs', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: `Bearer ${auth}` } : {}) },
  });

describe('POST /api/runs', () => {
  it('with a token queues a run (trigger api, its data); the same id again is the same run; a worker runs it', async () => {
    const first = await postRuns({ workflow: 'hello', prompt: 'hi', id: 'pr-7', data: { pr: 7 }, priority: 2 });
    expect(first.status).toBe(201);
    const body = JSON.parse(first.body) as { run: unknown; created: boolean; live_workers: number };
    const run = RunDetailJsonSchema.parse(body.run);
    expect([run.status, run.priority, run.trigger, body.created]).toEqual([
      'queued',
      2,
      { kind: 'api', name: null, by: 'ci' },
      true,
    ]);
    const again = await postRuns({ workflow: 'hello', prompt: 'other', id: 'pr-7' });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ run: { id: run.id, prompt: 'hi' }, created: false });
    const w = await startWorker(p);
    await until('the run to complete', () => p.status(run.id).status === 'completed', 20_000);
    expect(p.status(run.id).result).toBe('hi from api by ci pr 7');
    expect(trail(p, run.id)[0]).toMatchObject({ type: 'run_started', actor: 'ci', channel: 'api' });
    expect(await stopWorker(w)).toBe(0);
  }, 40_000);

  it('without a token, with a wrong or revoked one: 401 and nothing queued; bad input 400, an unknown workflow 404, a path 400', async () => {
    const before = p.list().length;
    for (const auth of [null, 'shop_wrong', `${token}x`])
      expect((await postRuns({ workflow: 'hello' }, auth)).status).toBe(401);
    expect((await postRuns({ workflow: 'hello', priority: 1.5 })).status).toBe(400);
    expect((await postRuns({ workflow: 'hello', key: 'no spaces' })).status).toBe(400);
    expect((await postRuns({ workflow: 'nope' })).status).toBe(404);
    const path = await postRuns({ workflow: '../workflows/hello.lua' });
    expect([path.status, JSON.parse(path.body).error]).toEqual([400, expect.stringMatching(/is not a workflow name/)]);
    const spare = ApiTokenAddedJsonSchema.parse(
      JSON.parse(p.shop(['access', 'add', 'spare', '--token', '--json']).stdout),
    );
    expect((await postRuns({ workflow: 'hello', id: 'spare-1' }, spare.token)).status).toBe(201);
    expect(p.shop(['access', 'revoke', 'spare']).code).toBe(0);
    expect((await postRuns({ workflow: 'hello', id: 'spare-2' }, spare.token)).status).toBe(401);
    expect(p.list().length).toBe(before + 1);
  });
});

describe('the web "Start a run" form in Chromium', () => {
  it.each([false, true])(
    'phone %s: start a run, see it queued, then running and completed without a reload',
    async (phone) => {
      const page = await newPage({ phone });
      await page.goto(`${s.base}/login/${addPerson(p, phone ? 'pat' : 'ann')}`);
      await page.getByRole('button', { name: /^Sign in as/ }).click();
      await page.getByRole('link', { name: 'Start a run' }).click();
      await page.getByLabel('Workflow', { exact: true }).selectOption('hello');
      await page.getByLabel('Prompt', { exact: true }).fill(phone ? 'from a phone' : 'from a desk');
      await screenshot(page, phone ? 'start-form-phone' : 'start-form');
      await page.getByRole('button', { name: 'Start' }).click();
      await page.waitForURL(/\/runs\/\d+$/);
      const id = Number(/\/runs\/(\d+)$/.exec(page.url())![1]);
      const badge = page.locator('main .badge').first();
      await expect.poll(() => badge.innerText()).toBe('queued');
      await page.evaluate(() => ((globalThis as { sameDocument?: boolean }).sameDocument = true));
      const w = await startWorker(p);
      await until('the run to complete', () => p.status(id).status === 'completed', 20_000);
      await expect.poll(() => badge.innerText(), { timeout: 10_000 }).toBe('completed');
      expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);
      await screenshot(page, phone ? 'start-done-phone' : 'start-done');
      const person = phone ? 'pat' : 'ann';
      expect(p.status(id).result).toBe(`${phone ? 'from a phone' : 'from a desk'} from web by ${person}`);
      expect(await stopWorker(w)).toBe(0);
    },
    40_000,
  );

  it('without JavaScript: the form posts; a bad priority comes back with what was typed, and why', async () => {
    const page = await newPage({ noScript: true });
    await page.goto(`${s.base}/login/${addPerson(p, 'sam')}`);
    await page.getByRole('button', { name: 'Sign in as sam' }).click();
    await page.goto(`${s.base}/start`);
    await page.getByLabel('Workflow', { exact: true }).selectOption('hello');
    await page.getByLabel('Prompt', { exact: true }).fill('kept');
    await page.locator('details summary').click();
    await page.getByLabel(/^Key/).fill('no spaces here');
    await page.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => page.locator('[role=alert]').innerText()).toMatch(/a key is 1 to 100 letters/);
    expect(await page.getByLabel('Prompt', { exact: true }).inputValue()).toBe('kept');
    await page.getByLabel(/^Key/).fill('prod');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/runs\/\d+$/);
    await expect.poll(() => page.locator('body').innerText()).toMatch(/Run #\d+ queued \(hello\)/);
    expect(dialogs).toEqual([]);
  });
});

describe('the runs page acts on a selection', () => {
  it('checks stay through a live update; Stop selected stops those runs alone, with the reason', async () => {
    const queue = (prompt: string) => {
      const r = p.shop(['run', 'hello', prompt, '--detach']);
      expect(r.code).toBe(0);
      return Number(/^run (\d+) queued/.exec(r.stdout)![1]);
    };
    const [a, b, c] = ['sel-a', 'sel-b', 'sel-c'].map(queue);
    const page = await newPage();
    await page.goto(`${s.base}/login/${addPerson(p, 'kim')}`);
    await page.getByRole('button', { name: 'Sign in as kim' }).click();
    await page.goto(`${s.base}/runs?status=queued`);
    await page.getByLabel(`select run ${a}`).check();
    await page.getByLabel(`select run ${b}`).check();
    // A new run queued meanwhile: the list updates itself (once no field has focus), and the two stay checked.
    await page.locator('h1').click();
    const d = queue('sel-d');
    await expect.poll(() => page.getByLabel(`select run ${d}`).count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByLabel(`select run ${a}`).isChecked()).toBe(true);
    expect(await page.getByLabel(`select run ${b}`).isChecked()).toBe(true);
    await page.getByLabel('With the selected runs').fill('not today');
    await page.getByRole('button', { name: 'Stop selected' }).click();
    await expect.poll(() => page.locator('.flash').innerText()).toBe(`Stopped #${a}, #${b}`);
    await screenshot(page, 'runs-selection-stopped');
    expect([a, b].map((id) => [p.status(id).status, p.status(id).reason])).toEqual([
      ['stuck', 'not today'],
      ['stuck', 'not today'],
    ]);
    expect([c, d].map((id) => p.status(id).status)).toEqual(['queued', 'queued']);
    expect(trail(p, a).at(-1)).toMatchObject({ type: 'stopped', actor: 'kim' });
  }, 40_000);
});
