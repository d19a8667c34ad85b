import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AnsweredJsonSchema,
  InboxRowJsonSchema,
  LogJsonSchema,
  RunDetailJsonSchema,
  RunJsonSchema,
} from '../../packages/core/src/operations/shapes.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { killLeftovers, makeProject, runId, startWorker, stopWorker, trail, until, type Project } from './harness.js';
import { addPerson, http, signIn, startServe, type Served } from './serve-harness.js';

/** /api/… serves exactly the documents of the CLI's --json, read by the same core queries. */

const GATE =
  'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n';

describe('shop serve /api', () => {
  let p: Project;
  let s: Served;
  let ann: { cookie: string; csrf: string };
  let waiting: number;
  let done: number;
  beforeAll(async () => {
    p = makeProject();
    p.write('workflows/gate.lua', GATE);
    done = runId(p.shop(['run', 'gate', 'v0']));
    expect(p.shop(['approve', `${done}.1`]).code).toBe(0);
    waiting = runId(p.shop(['run', 'gate', 'v1']));
    s = await startServe(p);
    ann = await signIn(s, addPerson(p, 'ann'));
  });

  const api = async (path: string) => {
    const r = await http(s, path, { cookie: ann.cookie });
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    return { status: r.status, json: JSON.parse(r.body) as unknown };
  };
  const cli = (args: string[]) => {
    const r = p.shop([...args, '--json']);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as unknown;
  };

  it('inbox, runs, a run and its log: the same documents as shop inbox|list|status|log --json, in the documented shapes', async () => {
    const inbox = await api('/api/inbox');
    expect(inbox.status).toBe(200);
    expect(
      InboxRowJsonSchema.array()
        .parse(inbox.json)
        .map((r) => r.handle),
    ).toEqual([`${waiting}.1`]);
    expect(inbox.json).toEqual(cli(['inbox']));

    const runs = await api('/api/runs');
    expect(
      RunJsonSchema.array()
        .parse(runs.json)
        .map((r) => r.id),
    ).toEqual([waiting, done]);
    expect(runs.json).toEqual(cli(['list']));
    expect((await api('/api/runs?status=completed&limit=1')).json).toEqual(
      cli(['list', '--status', 'completed', '--limit', '1']),
    );

    for (const id of [waiting, done]) {
      const detail = await api(`/api/runs/${id}`);
      expect(RunDetailJsonSchema.parse(detail.json).id).toBe(id);
      expect(detail.json).toEqual(cli(['status', String(id)]));
      const log = await api(`/api/runs/${id}/log`);
      expect(LogJsonSchema.parse(log.json).run.id).toBe(id);
      expect(log.json).toEqual(cli(['log', String(id)]));
    }
  });

  it('bad input and unknown runs: 400 and 404 with the one-line message the CLI gives', async () => {
    const missing = await api('/api/runs/9999');
    expect(missing.status).toBe(404);
    const said = p.shop(['status', '9999']);
    expect(said.code).toBe(5);
    expect(missing.json).toEqual({ error: said.stderr.trim().replace(/^shop: /, ''), status: 404 });
    expect((await api('/api/runs?status=bogus')).status).toBe(400);
    expect((await api('/api/runs?limit=-1')).status).toBe(400);
    expect((await api('/api/nothing')).status).toBe(404);
  });

  it('POST /api/answer: JSON with the CSRF token in X-CSRF-Token answers by handle; bad input 400; a second answer 409', async () => {
    const id = runId(p.shop(['run', 'gate', 'v2']));
    const post = (body: unknown) =>
      http(s, '/api/answer', {
        method: 'POST',
        cookie: ann.cookie,
        body: JSON.stringify(body),
        headers: {
          'Content-Type': 'application/json',
          'X-CSRF-Token': ann.csrf,
          Origin: s.base,
          'Sec-Fetch-Site': 'same-origin',
        },
      });
    expect((await post({ handle: `${id}.1`, verdict: 'maybe' })).status).toBe(400);
    expect((await post({ handle: `${id}.1`, verdict: 'approved', extra: 1 })).status).toBe(400);
    expect((await post({ handle: 'nonsense', verdict: 'approved' })).status).toBe(400);
    const ok = await post({ handle: `${id}.1`, verdict: 'rejected', message: 'not today' });
    expect(ok.status).toBe(200);
    const body = JSON.parse(ok.body) as { answered: unknown; resumed_by: string };
    expect(AnsweredJsonSchema.parse(body.answered)).toMatchObject({
      handle: `${id}.1`,
      verdict: 'rejected',
      message: 'not today',
      responder: 'ann',
      channel: 'web',
    });
    expect(body.resumed_by).toBe('background');
    const again = await post({ handle: `${id}.1`, verdict: 'approved' });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).error).toContain('ann');
    // Rejecting a pause goes on with continue = false: the workflow returns.
    await until('the run to end', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toEqual({ shipped: false });
    // Resumed by a detached shop resume of the server, its output kept with the run.
    expect(existsSync(join(p.dir, '.shop', 'runs', String(id), 'serve-resume.log'))).toBe(true);
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'ann', channel: 'web' }]);
  });

  it('with a live driver (shop watch) holding the run, the answer is handed to it: no background resume', async () => {
    const id = runId(p.shop(['run', 'gate', 'held']));
    const worker = await startWorker(p);
    try {
      await until('the worker to hold the run', () => /held here/.test(worker.output()));
      const r = await http(s, '/api/answer', {
        method: 'POST',
        cookie: ann.cookie,
        body: JSON.stringify({ handle: `${id}.1`, verdict: 'approved' }),
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ann.csrf },
      });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).resumed_by).toBe('live_driver');
      await until('the worker to complete the run', () => p.status(id).status === 'completed');
      expect(existsSync(join(p.dir, '.shop', 'runs', String(id), 'serve-resume.log'))).toBe(false);
    } finally {
      expect(await stopWorker(worker)).toBe(0);
      await killLeftovers();
    }
  });

  it('GET /events streams a change naming a run when it changes', async () => {
    let text = '';
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        path: '/events',
        headers: { Host: `127.0.0.1:${s.port}`, Cookie: ann.cookie },
      },
      (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
      },
    );
    req.end();
    try {
      await until('the stream to open', () => text.includes('retry:'));
      const id = runId(p.shop(['run', 'gate', 'v3']));
      await until('a change event naming the new run', () =>
        new RegExp(`event: change\\ndata: \\{"runs":\\[[\\d,]*\\b${id}\\b`).test(text),
      );
    } finally {
      req.destroy();
    }
  });
});
