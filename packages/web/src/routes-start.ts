import { NotFoundError, UsageError } from '@shop/core';
import * as z from 'zod';
import { webErrorText } from './http-errors.js';
import { readForm, readJson, sendJson } from './http-io.js';
import { startPage } from './pages/start.js';
import { apiCaller, backPath, flashTo, pageView, renderPage, type Ctx } from './request-context.js';

/** A start's body: the prompt may be long (a spec), and a caller's data up to core's bound. */
const START_BODY_BYTES = 2 * 1024 * 1024;

const ApiStart = z.strictObject({
  workflow: z.string().max(200),
  prompt: z.string().max(1_000_000).optional(),
  key: z.string().max(200).nullable().optional(),
  priority: z.number().int().optional(),
  id: z.string().max(1000).nullable().optional(),
  data: z.unknown().optional(),
});

/**
 * POST /api/runs: JSON {workflow, prompt?, key?, priority?, id?, data?} from an API token's
 * holder (trigger `api`) or a signed-in person (the CSRF token in X-CSRF-Token; trigger `web`):
 * the run is queued for the workers. 201 {run, created: true}; the same id again: 200, the
 * first run, created false. Bad input 400 (one line), an unknown workflow 404; nothing queued.
 */
export async function apiStartRoute(c: Ctx) {
  const caller = apiCaller(c);
  const parsed = ApiStart.safeParse(await readJson(c.req, START_BODY_BYTES));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const b = parsed.data;
  const queued = await c.deps.ops.queue({
    workflow: b.workflow,
    prompt: b.prompt ?? '',
    key: b.key ?? null,
    priority: b.priority ?? 0,
    id: b.id ?? null,
    trigger: { kind: caller.channel, name: null, by: caller.name, data: b.data ?? null },
    actor: caller.name,
  });
  sendJson(c.res, queued.created ? 201 : 200, {
    run: await c.deps.ops.runDetail(queued.run.id),
    created: queued.created,
    live_workers: queued.liveWorkers,
  });
}

/** GET /start: the form. */
export async function startFormRoute(c: Ctx) {
  const view = pageView(c);
  renderPage(c, view, startPage(view, { workflows: c.deps.ops.workflows(), posted: null, error: null }));
}

/** POST /start: the form posted; refused input comes back as the form as it was typed, and why (400). */
export async function startPostRoute(c: Ctx) {
  const form = await readForm(c.req);
  c.csrf.check(c.session!.token, form.get('csrf'));
  const priority = (form.get('priority') ?? '').trim();
  try {
    if (priority && !/^-?\d{1,7}$/.test(priority)) throw new UsageError(`the priority must be a whole number`);
    const { run, liveWorkers } = await c.deps.ops.queue({
      workflow: form.get('workflow') ?? '',
      prompt: form.get('prompt') ?? '',
      key: (form.get('key') ?? '').trim() || null,
      priority: priority ? Number(priority) : 0,
      trigger: { kind: 'web', name: null, by: c.session!.name, data: null },
      actor: c.session!.name,
    });
    const said = liveWorkers
      ? 'a worker starts it when one has room'
      : 'no worker is watching: it starts once one does';
    flashTo(c, `/runs/${run.id}`, 'ok', `Run #${run.id} queued (${run.spec}); ${said}`);
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof NotFoundError)) throw e;
    const view = pageView(c);
    const page = startPage(view, { workflows: c.deps.ops.workflows(), posted: form, error: webErrorText(e) });
    renderPage(c, view, page, 400);
  }
}

/**
 * POST /runs/bulk: run (repeated), action resume|stop, reason, csrf, back. Resume hands the failed
 * and driverless ones among them to the workers; stop stops those not ended. Back to the list
 * with what it came to.
 */
export async function bulkRoute(c: Ctx) {
  const form = await readForm(c.req);
  c.csrf.check(c.session!.token, form.get('csrf'));
  const ids = form
    .getAll('run')
    .filter((x) => /^\d{1,15}$/.test(x))
    .map(Number)
    .slice(0, 1000);
  const back = backPath(form, '/runs');
  const action = form.get('action');
  if (!ids.length) return flashTo(c, back, 'error', 'Select at least one run first');
  if (action !== 'resume' && action !== 'stop') throw new UsageError('action must be resume or stop');
  const by = c.session!.name;
  const reason = (form.get('reason') ?? '').trim().slice(0, 500) || `stopped by ${by} (web)`;
  const outcomes =
    action === 'resume'
      ? await c.deps.ops.resumeRuns({ ids }, by, 'web', false)
      : await c.deps.ops.stopRuns({ ids }, reason, by, false);
  const acted = outcomes.filter((o) => o.outcome !== 'skipped');
  const skipped = outcomes.filter((o) => o.outcome === 'skipped');
  const verb = action === 'resume' ? 'Queued again' : 'Stopped';
  const why = skipped.length ? `; skipped ${skipped.map((o) => `#${o.id} (${o.reason})`).join(', ')}` : '';
  flashTo(c, back, acted.length ? 'ok' : 'error', `${verb} ${acted.map((o) => `#${o.id}`).join(', ') || 'none'}${why}`);
}
