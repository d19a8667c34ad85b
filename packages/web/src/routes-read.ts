import { UsageError, displayStatuses } from '@shop/core';
import { sendJson } from './http-io.js';
import { inboxPage, runPage, runsPage } from './page-set.js';
import { pageView, renderPage, type Ctx } from './request-context.js';

/** The runs page shows this many; the API, like `shop list --json`, all unless told. */
const PAGE_RUNS = 100;
/** The run page's trail: the latest events (shop log has them all). */
const PAGE_EVENTS = 300;

function statusParam(c: Ctx): string | undefined {
  const status = c.url.searchParams.get('status') || undefined;
  if (status !== undefined && !(displayStatuses as readonly string[]).includes(status)) {
    throw new UsageError(
      `status ${JSON.stringify(status.slice(0, 40))} is not a run status (one of ${displayStatuses.join(', ')})`,
    );
  }
  return status;
}

function limitParam(c: Ctx): number {
  const raw = c.url.searchParams.get('limit');
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 1_000_000)
    throw new UsageError(`limit ${JSON.stringify(raw.slice(0, 20))} must be a whole number of runs (0: all)`);
  return n;
}

/** A run id from the path (digits only by the route's pattern). */
export function runIdParam(raw: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id <= 0) throw new UsageError(`${JSON.stringify(raw.slice(0, 20))} is not a run id`);
  return id;
}

export async function inboxRoute(c: Ctx) {
  const view = pageView(c);
  renderPage(c, view, inboxPage(view, await c.deps.ops.inbox()));
}

export async function runsRoute(c: Ctx) {
  const status = statusParam(c);
  const { rows, total } = await c.deps.ops.runs({ status, limit: PAGE_RUNS });
  const view = pageView(c);
  renderPage(c, view, runsPage(view, { rows, total, status: status ?? null }));
}

export async function runRoute(c: Ctx, [id]: string[]) {
  const runId = runIdParam(id);
  const detail = await c.deps.ops.runDetail(runId);
  const events = await c.deps.ops.recentEvents(runId, PAGE_EVENTS);
  const view = pageView(c);
  renderPage(c, view, runPage(view, detail, events));
}

/** The same documents as `shop inbox|list|status|log --json` (core's queries, the shapes in shapes.ts). */
export const apiInbox = async (c: Ctx) => sendJson(c.res, 200, await c.deps.ops.inbox());
export const apiRuns = async (c: Ctx) =>
  sendJson(c.res, 200, (await c.deps.ops.runs({ status: statusParam(c), limit: limitParam(c) })).rows);
export const apiRun = async (c: Ctx, [id]: string[]) =>
  sendJson(c.res, 200, await c.deps.ops.runDetail(runIdParam(id)));
export const apiRunLog = async (c: Ctx, [id]: string[]) => sendJson(c.res, 200, await c.deps.ops.log(runIdParam(id)));
/** Who is signed in, and the CSRF token a script sends as X-CSRF-Token with POST /api/answer. */
export const apiSession = async (c: Ctx) =>
  sendJson(c.res, 200, { name: c.session!.name, csrf: c.csrf.tokenFor(c.session!.token) });
