import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, makeProject, runId, trail, until } from './harness.js';
import { http, postForm, startServe } from './serve-harness.js';

/** The whole path of an answer link: shop serve records its address, a webhook notice carries the link, the link answers. */

describe('an answer link from a webhook notice', () => {
  it('opens the ask on shop serve and answers it there, without signing in; the run goes on', async () => {
    const bodies: { answer_url?: string | null }[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => (bodies.push(JSON.parse(body)), res.end('ok')));
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      const p = makeProject();
      const port = await freePort();
      const s = await startServe(p, ['--port', String(port), '--public-url', `http://127.0.0.1:${port}`]);
      expect(s.port).toBe(port);
      p.write(
        'workflows/gate.lua',
        `config{ notify = { "webhook:http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook" } }
function workflow(prompt)
  local r = pause("Ship " .. prompt .. "?")
  return { shipped = r.continue, by = r.responder }
end\n`,
      );
      const r = await p.shopAsync(['run', 'gate', 'v9']);
      expect(r.code).toBe(3);
      const id = runId(r.stdout);
      const url = await until('the notice', () => bodies.find((b) => b.answer_url)?.answer_url);
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/a/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
      const path = new URL(url).pathname;
      const page = await http(s, path);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Ship v9?');
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1];
      const answered = await postForm(s, path, { handle: `${id}.1`, verb: 'approve', csrf, by: 'Dana' }, '');
      expect(answered.status).toBe(303);
      await until('the run to complete', () => p.status(id).status === 'completed');
      expect(p.status(id).result).toEqual({ shipped: true, by: 'Dana' });
      expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([
        { actor: 'Dana', channel: 'link' },
      ]);
    } finally {
      hook.close();
    }
  });
});
