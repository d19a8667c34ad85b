import { InboxRowJsonSchema, RunDetailJsonSchema } from '@shop/core';
import type { EventJson, InboxRowJson, RunDetailJson } from '@shop/core';
import { agentAsk, executionJson, fakeRun, liveLook, pauseAsk, pendingJson, runJson, shown } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import type { Html } from '../html.js';
import { askPage } from './ask.js';
import { errorPage } from './error.js';
import { inboxPage } from './inbox.js';
import { layout, renderPage, type PageView } from './layout.js';
import { loginPage } from './login.js';
import { runPage } from './run.js';
import { runsPage } from './runs.js';

const XSS = '<script>alert("x")</script>';
const NOW = 1_700_000_300_000;
const view: PageView = { me: 'ann', csrf: 'tok-1', flash: null, now: NOW };

const row = (
  over: Partial<InboxRowJson> = {},
  exec = agentAsk({ waitingFor: `Merge? ${XSS}`, awaiting: 'approval', agent: `rev${XSS}` }),
): InboxRowJson =>
  InboxRowJsonSchema.parse({
    run: 7,
    spec: `feature${XSS}`,
    run_status: 'waiting_human',
    ...pendingJson(7, exec),
    ...over,
  });

function detail(): RunDetailJson {
  const run = fakeRun({
    spec: `wf${XSS}`,
    prompt: `do ${XSS}`,
    status: 'failed',
    reason: `reason ${XSS}`,
    endedAt: NOW - 1000,
    result: { status: 'DONE', summary: `summary ${XSS}` },
  });
  const done = agentAsk({
    key: '1',
    seq: 1,
    status: 'completed',
    agent: `coder${XSS}`,
    result: { status: 'DONE', summary: `said ${XSS}` },
    finishedAt: NOW - 5000,
    error: null,
  });
  const working = agentAsk({
    key: '2/1/1',
    seq: 2,
    status: 'running',
    agent: 'tester',
    activity: `Bash ${XSS}`,
    activityAt: NOW - 1000,
    waitingFor: null,
    awaiting: null,
  });
  const waiting = pauseAsk(`pause ${XSS}`, { key: '2/2/1', seq: 3 });
  return RunDetailJsonSchema.parse({
    ...runJson(run, liveLook(run), waiting, 0.25),
    calls: 3,
    executions: [done, working, waiting].map((e) => executionJson(e)),
    pending: pendingJson(7, waiting),
    asks: [pendingJson(7, waiting)],
  });
}

const events: EventJson[] = [
  {
    id: 1,
    at: new Date(NOW - 60_000).toISOString(),
    type: 'waiting',
    key: '2/2/1',
    actor: 'shop',
    channel: 'engine',
    data: { waiting_for: `w ${XSS}` },
  },
  {
    id: 2,
    at: new Date(NOW - 30_000).toISOString(),
    type: 'stop_requested',
    key: null,
    actor: `bob${XSS}`,
    channel: 'cli',
    data: { reason: `stop ${XSS}` },
  },
];

/** No unescaped payload, no inline script or style anywhere. */
function expectSafe(page: Html) {
  const text = page.text;
  expect(text).not.toContain('<script>alert');
  for (const tag of text.match(/<script\b[^>]*>/g) ?? []) expect(tag).toBe('<script src="/static/app.js" defer>');
  expect(text).not.toMatch(/\sstyle=|\son[a-z]+=|javascript:/i);
}

describe('pages', () => {
  it('the layout: doctype, viewport, the stylesheet and script, header with who is signed in, the flash, #live', () => {
    const doc = layout(
      { ...view, flash: { kind: 'error', text: `bad ${XSS}` } },
      { title: `t${XSS}`, body: inboxPage(view, []).body },
    ).text;
    expect(doc.startsWith('<!doctype html>')).toBe(true);
    expect(doc).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(doc).toContain('<link rel="stylesheet" href="/static/app.css">');
    expect(doc).toContain('<script src="/static/app.js" defer></script>');
    expect(doc).toContain('signed in as <b>ann</b>');
    expect(doc).toContain('<a href="/runs">Runs</a>');
    expect(doc).toContain('<p class="flash error" role="alert">bad &lt;script&gt;');
    expect(doc).toContain('<main id="live">');
    expect(doc).toContain('<body data-live>');
    expect(doc).toContain('Nothing is waiting for a person');
    expectSafe(layout(view, { title: XSS, body: inboxPage(view, []).body }));
    expect(layout({ ...view, me: null }, loginPage(view, null)).text).toContain('<body>');
  });

  it('the inbox: question, kind, agent, run and workflow, waiting since, claim — all as text', () => {
    const page = inboxPage(view, [row()]);
    expect(page.title).toBe('Inbox (1)');
    expectSafe(page.body);
    const t = page.body.text;
    expect(t).toContain('Merge? &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(t).toContain('feature&lt;script&gt;');
    expect(t).toContain('rev&lt;script&gt;');
    expect(t).toContain('<a class="run-link" href="/runs/7">run 7</a>');
    expect(t).toContain('>approval</span>');
    expect(t).toMatch(/waiting since <time datetime="2023-11-14T22:14:20.000Z"[^>]*>4 min ago<\/time>/);
    expect(t).toContain('Claim — I&#39;m on it');
    expect(t).toContain('nobody is on it');
    expect(t).toMatch(
      /<form method="post" action="\/claim" class="claim">\s*<input type="hidden" name="handle" value="7.2">\s*<input type="hidden" name="csrf" value="tok-1">/,
    );
  });

  it('the inbox sorts oldest first and shows the claimant; the claimant gets Release', () => {
    const later = row({ handle: '8.1', run: 8, waiting_since: new Date(NOW - 10_000).toISOString() });
    const mine = { ...row(), claimed_by: { by: 'ann', since: new Date(NOW - 120_000).toISOString() } } as InboxRowJson;
    const t = inboxPage(view, [later, mine]).body.text;
    expect(t.indexOf('data-handle="7.2"')).toBeLessThan(t.indexOf('data-handle="8.1"'));
    expect(t).toContain('claimed by <b>ann</b> 2 min ago');
    expect(t).toContain(
      '<input type="hidden" name="release" value="1"><button type="submit" class="btn b-release">Release</button>',
    );
    const until = {
      ...row(),
      claimed_by: {
        by: 'ann',
        since: new Date(NOW - 120_000).toISOString(),
        until: new Date(NOW + 3_600_000).toISOString(),
      },
    } as InboxRowJson;
    expect(inboxPage(view, [until]).body.text).toContain('claimed by <b>ann</b> 2 min ago (ages out in 1 h)');
    const theirs = inboxPage({ ...view, me: 'bob' }, [mine]).body.text;
    expect(theirs).toContain('Take over from ann');
    expect(theirs).not.toContain('name="release"');
  });

  it('runs: filter links, the current one marked, each run linking to its page, its texts escaped', () => {
    const run = runJson(
      ...shown(fakeRun({ spec: `wf${XSS}`, prompt: `p ${XSS}`, status: 'stuck', reason: `r ${XSS}` })),
      null,
      1.5,
    );
    const page = runsPage(view, { rows: [run], total: 40, status: 'stuck' });
    expectSafe(page.body);
    const t = page.body.text;
    for (const s of ['running', 'waiting_human', 'interrupted', 'completed', 'stuck', 'failed'])
      expect(t).toContain(`href="/runs?status=${s}"`);
    expect(t).toContain('href="/runs">all</a>');
    expect(t).toContain('<a class="filter current s-stuck" href="/runs?status=stuck" aria-current="page">stuck</a>');
    expect(t).toContain('<a class="run-id" href="/runs/7">#7</a>');
    expect(t).toContain('r &lt;script&gt;');
    expect(t).toContain('Showing the newest 1 of 40.');
    const done = runJson(
      ...shown(fakeRun({ status: 'completed', result: { shipped: true }, endedAt: 1_700_000_090_000 })),
      null,
      0,
    );
    expect(runsPage(view, { rows: [done], total: 1, status: null }).body.text).toMatch(
      /<span class="doing">\{ &quot;shipped&quot;: true \}<\/span>[\s\S]*<span>took 1 min 30 s<\/span>/,
    );
    expect(runsPage(view, { rows: [], total: 0, status: null }).body.text).toContain('No runs yet');
    const gone = { ...run, status: 'interrupted' as const, driver_gone_since: new Date(NOW - 600_000).toISOString() };
    expect(runsPage(view, { rows: [gone], total: 1, status: null }).body.text).toMatch(
      /no driver since <time[^>]*>10 min ago<\/time>.* — <code>shop resume 7<\/code> goes on/,
    );
    expect(runPage(view, { ...detail(), ...gone, ended_at: null }, []).body.text).toContain(
      '<code>shop resume 7</code> or <code>shop watch</code> goes on',
    );
  });

  it('run detail: outcome, asks with forms, last words, activity, timeline, calls by branch, events — all escaped', () => {
    const page = runPage(view, detail(), events);
    expectSafe(page.body);
    const t = page.body.text;
    expect(page.title).toBe(`Run 7 · wf${XSS}`); // the title is escaped by the layout
    expect(t).toContain('reason &lt;script&gt;');
    expect(t).toContain('DONE: summary &lt;script&gt;');
    expect(t).toContain('pause &lt;script&gt;');
    expect(t).toContain('name="verb" value="approve"');
    expect(t).toContain('name="back" value="/runs/7"');
    expect(t).toContain('Bash &lt;script&gt;'); // live activity
    expect(t).toContain('<svg class="timeline"');
    expect(t).toContain('>branch 2/1</h3>');
    expect(t).toContain('>branch 2/2</h3>');
    expect(t).toContain('stop &lt;script&gt;');
    expect(t).toContain('by bob&lt;script&gt;');
    expect(t).not.toContain('/runs/7/stop'); // it has ended
  });

  it("run detail of a live run: a Stop form with reason and csrf; the last words are the agent's", () => {
    const d = { ...detail(), ended_at: null, status: 'running' as const };
    const t = runPage(view, d, []).body.text;
    expect(t).toMatch(
      /<form method="post" action="\/runs\/7\/stop" class="stop-form">\s*<input type="hidden" name="csrf" value="tok-1">/,
    );
    expect(t).toContain('name="reason"');
    expect(t).toMatch(/Last words <span class="muted">· tester \(call 2\/1\/1\)/);
  });

  it('the ask page: forms with the name field; who answered; closed', () => {
    const open = askPage(
      { ...view, me: null },
      { ask: row(), handle: '7.2', answered: null, action: '/a/tok', nameField: true },
    );
    expectSafe(open.body);
    expect(open.body.text).toContain('action="/a/tok"');
    expect(open.body.text).toContain('name="by" required');
    const done = askPage(view, {
      ask: null,
      handle: '7.2',
      answered: {
        responder: `carol${XSS}`,
        at: new Date(NOW - 60_000).toISOString(),
        verdict: 'approved',
        status: null,
        channel: 'link',
      },
      action: '/a/tok',
      nameField: true,
    });
    expectSafe(done.body);
    expect(done.body.text).toContain('<b>carol&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</b> answered');
    expect(done.body.text).toContain('through an answer link — <span class="verdict">approved</span>');
    expect(done.body.text).not.toContain('<form');
    expect(
      askPage(view, { ask: null, handle: '7.2', answered: null, action: '/a/t', nameField: false }).body.text,
    ).toContain('This ask is closed');
  });

  it('login and error pages say what to do, escaped', () => {
    const login = loginPage(view, `expired ${XSS}`).body.text;
    expect(login).toContain('shop access add &lt;your name&gt;');
    expect(login).toContain('expired &lt;script&gt;');
    const err = errorPage(view, 404, `no run ${XSS}`);
    expect(err.title).toBe('Not found');
    expect(err.body.text).toContain('<h1>Not found <span class="status-code">404</span></h1>');
    expect(errorPage(view, 409, 'x').title).toBe('Someone was first');
    expect(errorPage(view, 418, 'x').title).toBe('That did not work');
    expect(err.body.text).toContain('no run &lt;script&gt;');
  });
});

describe('renderPage', () => {
  it("sends the whole document, or only #live's content led by the title for a live refresh", () => {
    const page = inboxPage(view, [row()]);
    expect(renderPage(view, page).text.startsWith('<!doctype html>')).toBe(true);
    const partial = renderPage(view, page, true).text;
    expect(partial.startsWith('<span hidden id="page-title" data-title="Inbox (1) · shop"></span><h1>Inbox')).toBe(
      true,
    );
    expect(partial).not.toContain('<main');
  });
});

describe('run page asks', () => {
  it('a pause shows its context and deadline beside its question', () => {
    const gate = pauseAsk({ message: 'Deploy?', context: `The diff: ${XSS}`, deadline: 3600 }, { key: '1', seq: 1 });
    const d = RunDetailJsonSchema.parse({
      ...runJson(...shown(fakeRun()), gate, 0),
      calls: 1,
      executions: [executionJson(gate)],
      pending: pendingJson(7, gate),
      asks: [pendingJson(7, gate)],
    });
    const t = runPage(view, d, []).body.text;
    expect(t).toContain('<p class="context">The diff: &lt;script&gt;');
    expect(t).toMatch(/answer by <time datetime="2023-11-14T23:13:20.000Z"[^>]*>in 55 min<\/time>/);
  });

  it('a workflow table result reads as indented JSON, escaped', () => {
    const d = { ...detail(), result: { answers: { note: XSS } } };
    expect(runPage(view, d, []).body.text).toContain(
      '<pre class="result">{\n  &quot;answers&quot;: {\n    &quot;note&quot;: &quot;&lt;script&gt;',
    );
  });
});
