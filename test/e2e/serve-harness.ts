import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { answerLinkToken } from '../../packages/core/src/access/answer-link.js';
import { eventUrl, type EventUrlTarget } from '../../packages/core/src/access/event-url.js';
import type { Clock } from '../../packages/core/src/engine/ports.js';
import { openSqliteStore } from '../../packages/core/src/store/sqlite/sqlite-store.js';
import { until, type Background, type Project } from './harness.js';

/** `shop serve` for end-to-end tests: a real server process on a free port, and plain HTTP requests to it. */
export interface Served {
  bg: Background;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
}

const servers: Background[] = [];
afterAll(async () => {
  for (const bg of servers.splice(0)) {
    if (bg.child.exitCode === null && bg.child.signalCode === null) {
      bg.child.kill('SIGKILL');
      await bg.exited;
    }
  }
});

/** Starts `shop serve --port 0 …` and reads the address it prints. */
export async function startServe(p: Project, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const bg = p.spawnShop(['serve', '--port', '0', ...args], { env });
  servers.push(bg);
  await until('shop serve to listen', () => /listening on /.test(bg.output()) || bg.child.exitCode !== null);
  const m = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(bg.output());
  if (!m) throw new Error(`shop serve exited ${bg.child.exitCode}:\n${bg.output()}`);
  return { bg, base: m[1], port: Number(m[2]) };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Req {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  cookie?: string;
}

/** One request with exactly the headers given (Host, Origin, Sec-Fetch-Site), as a browser or an attacker would send them. */
export function http(s: Served, path: string, opts: Req = {}): Promise<Reply> {
  const headers: Record<string, string> = { Host: `127.0.0.1:${s.port}`, ...opts.headers };
  if (opts.cookie) headers.Cookie = opts.cookie;
  if (opts.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, path, method: opts.method ?? 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A form post from one of our own pages, as Chromium sends it under Referrer-Policy: no-referrer. */
export function postForm(
  s: Served,
  path: string,
  fields: Record<string, string>,
  cookie: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return http(s, path, {
    method: 'POST',
    cookie,
    body: new URLSearchParams(fields).toString(),
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: 'null',
      'Sec-Fetch-Site': 'same-origin',
      ...headers,
    },
  });
}

/** `shop access add <name>`: the person's login token (from the link it prints). */
export function addPerson(p: Project, name: string): string {
  const r = p.shop(['access', 'add', name]);
  expect(r.stderr).toBe('');
  const m = /\/login\/([A-Za-z0-9_-]+)/.exec(r.stdout);
  if (!m) throw new Error(`no login link in:\n${r.stdout}`);
  return m[1];
}

/**
 * Signs in as a browser does: the login link's page, then its button (a same-origin form post
 * to /login); returns the session cookie and the CSRF token the server gives this session.
 */
export async function signIn(s: Served, token: string): Promise<{ cookie: string; csrf: string }> {
  const page = await http(s, `/login/${token}`);
  expect(page.status).toBe(200);
  const login = await postForm(s, '/login', { token }, '');
  expect(login.status).toBe(303);
  const set = [login.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith(`shop_session_${s.port}=`));
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/SameSite=Strict/);
  const cookie = set!.split(';')[0];
  const session = await http(s, '/api/session', { cookie });
  expect(session.status).toBe(200);
  return { cookie, csrf: (JSON.parse(session.body) as { csrf: string }).csrf };
}

/** An answer link token for one ask, signed with the project's key (as notifiers make them), valid `ttlMs` from `clock`. */
export async function answerLink(
  p: Project,
  ask: { runId: number; key: string; ask: number },
  ttlMs?: number,
  clock: Clock = { now: () => Date.now() },
): Promise<string> {
  const store = openSqliteStore(join(p.dir, '.shop', 'shop.db'));
  try {
    return await answerLinkToken(store, clock, ask, ttlMs);
  } finally {
    store.close();
  }
}

/** GET /events with a cookie (its own connection): its status, what the stream has said, and whether the server has ended it. */
export function openStream(s: Served, cookie: string) {
  const state = { status: 0, text: '', ended: false };
  const req = request(
    {
      host: '127.0.0.1',
      port: s.port,
      path: '/events',
      agent: false,
      headers: { Host: `127.0.0.1:${s.port}`, Cookie: cookie },
    },
    (res) => {
      state.status = res.statusCode!;
      res.setEncoding('utf8');
      res.on('data', (d: string) => (state.text += d));
      res.on('end', () => (state.ended = true));
      res.on('close', () => (state.ended = true));
    },
  );
  req.on('error', () => (state.ended = true));
  req.end();
  return { state, close: () => req.destroy() };
}

/** An event URL's token for one run's call, made as its workflow's event_url makes them (the public URL must be recorded). */
export async function eventUrlToken(
  p: Project,
  target: EventUrlTarget,
  ttlMs?: number,
  clock: Clock = { now: () => Date.now() },
): Promise<string> {
  const store = openSqliteStore(join(p.dir, '.shop', 'shop.db'));
  try {
    return (await eventUrl(store, clock, target, ttlMs)).split('/e/')[1]!;
  } finally {
    store.close();
  }
}
