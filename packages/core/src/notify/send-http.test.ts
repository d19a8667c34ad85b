import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskNotice } from './ask-notice.js';
import { nodeNoticeDeps, sendNotice, type NoticeDeps } from './send.js';

const notice: AskNotice = {
  event: 'waiting',
  run: 3,
  spec: 'feature',
  call: '1/2/1',
  ask: 1,
  handle: '3.1/2/1',
  awaiting: 'approval',
  agent: 'planner',
  question: 'Ship the plan <v2> & merge?',
  answer_with: ['shop approve 3.1/2/1', 'shop reject 3.1/2/1'],
  answer_url: null,
  waited_seconds: 0,
  project: '/home/me/shop-demo',
  at: '2025-01-02T03:04:05+01:00',
};

interface Hit {
  method: string;
  url: string;
  contentType: string;
  body: string;
}

/** A real server on 127.0.0.1: `answer` gives the status of each request in turn (null: never answer). */
async function serve(answer: (n: number) => number | null): Promise<{ base: string; hits: Hit[]; server: Server }> {
  const hits: Hit[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'] ?? '', body });
      const status = answer(hits.length);
      if (status !== null) res.writeHead(status).end('{"whatever":true}');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Real fetch, no waiting between attempts; the waits asked for are recorded. */
function deps(): NoticeDeps & { slept: number[] } {
  const slept: number[] = [];
  return { ...nodeNoticeDeps(), slept, sleep: async (ms) => void slept.push(ms) };
}

describe('webhook', () => {
  it('POSTs the notice as the exact JSON body, as application/json', async () => {
    const { base, hits } = await serve(() => 204);
    const result = await sendNotice({ kind: 'webhook', url: `${base}/hook/S3CRET?token=TOKEN` }, notice, deps());
    expect(result).toEqual({ ok: true, target: `webhook:${base}/…` });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ method: 'POST', url: '/hook/S3CRET?token=TOKEN', contentType: 'application/json' });
    expect(JSON.parse(hits[0]!.body)).toEqual(notice);
    expect(hits[0]!.body).toBe(JSON.stringify(notice));
  });

  it('retries 500 twice with backoff, then succeeds on the third attempt', async () => {
    const { base, hits } = await serve((n) => (n < 3 ? 500 : 200));
    const d = deps();
    expect(await sendNotice({ kind: 'webhook', url: `${base}/h` }, notice, d)).toEqual({
      ok: true,
      target: `webhook:${base}/…`,
    });
    expect(hits).toHaveLength(3);
    expect(hits.map((h) => h.body)).toEqual([JSON.stringify(notice), JSON.stringify(notice), JSON.stringify(notice)]);
    expect(d.slept).toEqual([500, 1000]);
  });

  it('retries 429, and gives up after 3 attempts of 503', async () => {
    const a = await serve((n) => (n === 1 ? 429 : 200));
    expect((await sendNotice({ kind: 'webhook', url: a.base }, notice, deps())).ok).toBe(true);
    expect(a.hits).toHaveLength(2);

    const b = await serve(() => 503);
    const result = await sendNotice({ kind: 'webhook', url: `${b.base}/p/S3CRET` }, notice, deps());
    expect(result).toEqual({
      ok: false,
      target: `webhook:${b.base}/…`,
      error: `webhook:${b.base}/…: HTTP 503 Service Unavailable (3 attempts)`,
    });
    expect(b.hits).toHaveLength(3);
  });

  it('fails a 404 at once, naming the host but never the path or token', async () => {
    const { base, hits } = await serve(() => 404);
    const d = deps();
    const result = await sendNotice({ kind: 'webhook', url: `${base}/in/S3CRET?token=TOKEN` }, notice, d);
    expect(result).toEqual({
      ok: false,
      target: `webhook:${base}/…`,
      error: `webhook:${base}/…: HTTP 404 Not Found, not retried (1 attempt)`,
    });
    expect(JSON.stringify(result)).not.toMatch(/S3CRET|TOKEN|\/in/);
    expect(hits).toHaveLength(1);
    expect(d.slept).toEqual([]);
  });

  it('does not follow a redirect', async () => {
    const { base, hits } = await serve(() => 302);
    const result = await sendNotice({ kind: 'webhook', url: `${base}/old` }, notice, deps());
    expect(result).toMatchObject({ ok: false, error: `webhook:${base}/…: HTTP 302 Found, not retried (1 attempt)` });
    expect(hits).toHaveLength(1);
  });

  it('times out on a server that never answers, each attempt', async () => {
    const { base, hits } = await serve(() => null);
    const started = Date.now();
    const result = await sendNotice({ kind: 'webhook', url: `${base}/slow` }, notice, deps(), {
      httpTimeoutMs: 150,
      httpAttempts: 2,
    });
    expect(result).toEqual({
      ok: false,
      target: `webhook:${base}/…`,
      error: `webhook:${base}/…: no answer within 0.15 s (2 attempts)`,
    });
    expect(hits).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails on a refused connection (a port nothing listens on)', async () => {
    const { base, server } = await serve(() => 200);
    servers.splice(servers.indexOf(server), 1);
    await new Promise((r) => server.close(r));
    const d = deps();
    const result = await sendNotice({ kind: 'webhook', url: `${base}/gone/S3CRET` }, notice, d);
    expect(result).toEqual({
      ok: false,
      target: `webhook:${base}/…`,
      error: `webhook:${base}/…: ECONNREFUSED (3 attempts)`,
    });
    expect(d.slept).toEqual([500, 1000]);
  });

  it('never throws, even when fetch itself throws synchronously', async () => {
    const d: NoticeDeps = {
      ...deps(),
      fetch: () => {
        throw new Error('boom at https://hooks.example.com/in/S3CRET');
      },
    };
    const result = await sendNotice({ kind: 'webhook', url: 'https://hooks.example.com/in/S3CRET' }, notice, d, {
      httpAttempts: 1,
    });
    expect(result).toEqual({
      ok: false,
      target: 'webhook:https://hooks.example.com/…',
      error: 'webhook:https://hooks.example.com/…: boom at https://hooks.example.com/… (1 attempt)',
    });
  });
});

describe('slack', () => {
  it("POSTs Slack's {text} with one escaped line naming run, spec, question and the first answer", async () => {
    const { base, hits } = await serve(() => 200);
    const result = await sendNotice({ kind: 'slack', url: `${base}/services/T0/B0/XyZ` }, notice, deps());
    expect(result).toEqual({ ok: true, target: `slack:${base}/…` });
    expect(hits[0]!.contentType).toBe('application/json');
    expect(JSON.parse(hits[0]!.body)).toEqual({
      text: 'Shop run 3 (feature) waits for you: Ship the plan &lt;v2&gt; &amp; merge? — answer: shop approve 3.1/2/1',
    });
  });

  it('keeps a long multi-line question to one line of about 300 characters', async () => {
    const { base, hits } = await serve(() => 200);
    const long = {
      ...notice,
      event: 'reminder' as const,
      waited_seconds: 7500,
      question: `${'why '.repeat(200)}\nsecond line`,
    };
    await sendNotice({ kind: 'slack', url: base }, long, deps());
    const text = (JSON.parse(hits[0]!.body) as { text: string }).text;
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).toMatch(/^Shop run 3 \(feature\) still waits for you \(2 h 5 min\): why why /);
    expect(text).toMatch(/\(\d{3} characters in all\) — answer: shop approve 3\.1\/2\/1$/);
  });
});
