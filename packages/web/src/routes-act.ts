import { UsageError, runIdOfHandle } from '@shop/core';
import * as z from 'zod';
import { answeredText, answerPosted, openAskRow } from './answer-form.js';
import { webErrorText } from './http-errors.js';
import { readForm, readJson, sendJson } from './http-io.js';
import { askPage } from './page-set.js';
import { apiCaller, backPath, flashTo, pageView, renderPage, type Ctx } from './request-context.js';
import { runIdParam } from './routes-read.js';

/** A form post from a signed-in person's page: its fields, once the CSRF token is checked. */
async function signedForm(c: Ctx): Promise<URLSearchParams> {
  const form = await readForm(c.req);
  c.csrf.check(c.session!.token, form.get('csrf'));
  return form;
}

/**
 * POST /answer: handle, verb, message, d.<id>, c.<id>, csrf, back. An answer the rules refuse
 * (bad input) comes back as the ask's page with the form as it was posted and why — never a
 * bare error page that loses what was typed (status 400 all the same).
 */
export async function answerRoute(c: Ctx) {
  const form = await signedForm(c);
  const handle = form.get('handle') ?? '';
  let answered;
  try {
    answered = await answerPosted(c.deps, handle, form, 'web', c.session!.name);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const ask = await openAskRow(c.deps, handle);
    if (!ask) throw e;
    const view = pageView(c);
    renderPage(
      c,
      view,
      askPage(view, {
        ask,
        handle,
        answered: null,
        action: '/answer',
        nameField: false,
        back: backPath(form, `/runs/${ask.run}`),
        refused: { posted: form, error: webErrorText(e) },
      }),
      400,
    );
    return;
  }
  flashTo(c, backPath(form, `/runs/${runIdOfHandle(handle) ?? ''}`), 'ok', answeredText(answered));
}

/** POST /claim: handle, release ("1" lets it go), csrf, back. */
export async function claimRoute(c: Ctx) {
  const form = await signedForm(c);
  const handle = (form.get('handle') ?? '').slice(0, 200);
  const release = form.get('release') === '1';
  if (release) await c.deps.ops.release(handle, c.session!.name);
  else await c.deps.ops.claim(handle, c.session!.name);
  flashTo(c, backPath(form, '/'), 'ok', release ? `Released ${handle}` : `You are on ${handle}`);
}

/** POST /runs/<id>/stop: reason, csrf. */
export async function stopRoute(c: Ctx, [id]: string[]) {
  const runId = runIdParam(id);
  const form = await signedForm(c);
  const reason = (form.get('reason') ?? '').trim() || `stopped by ${c.session!.name} from the web`;
  if (reason.length > 2000) throw new UsageError('the reason is longer than 2000 characters; say it shorter');
  const { run } = await c.deps.ops.stop(runId, reason, c.session!.name);
  const text =
    run.status === 'stuck'
      ? `Run ${runId} stopped: ${run.reason ?? reason}`
      : `Run ${runId} ended ${run.status} before the stop took effect`;
  flashTo(c, `/runs/${runId}`, 'ok', text);
}

const ApiAnswer = z.strictObject({
  handle: z.string().max(200),
  verdict: z.enum(['approved', 'rejected', 'answer']).optional(),
  status: z.string().max(100).optional(),
  message: z.string().max(20_000).nullable().optional(),
  answers: z.record(z.string().max(200), z.unknown()).optional(),
});

/**
 * POST /api/answer: JSON {handle, verdict?, status?, message?, answers?}, from a signed-in person
 * (the CSRF token in X-CSRF-Token) or an API token's holder (channel `api`).
 */
export async function apiAnswerRoute(c: Ctx) {
  const caller = apiCaller(c);
  const parsed = ApiAnswer.safeParse(await readJson(c.req));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const { handle, ...input } = parsed.data;
  const { exec, answered, handedTo } = await c.deps.ops.answerHandle({
    handle,
    input,
    channel: caller.channel,
    responder: caller.name,
  });
  if (!handedTo) c.deps.resumeInBackground(exec.runId);
  sendJson(c.res, 200, { answered, resumed_by: handedTo ? 'live_driver' : 'background' });
}
