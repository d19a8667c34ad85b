// P7 — `shop serve`: the inbox page and /api/inbox on a store of many runs (P4's store: every
// 100th run waits, so 1,000 open asks at 100,000 runs), as request time on loopback (p50, p95);
// and an answer posted to the server → the run completed (no worker: the server starts a
// `shop resume` in the background). Run alone: node bench/p7-serve.mjs [runs] [samples].
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shopBin, shopEnv } from './shop-project.mjs';

const Database = createRequire(import.meta.url)('better-sqlite3');
/** Requests before the measured ones: the server's code is compiled hot by then (a long-lived process). */
const WARM_UP = 10;

/** `shop serve --port 0` in `dir`, once it listens; `stop()` ends it (SIGTERM). */
async function serve(dir) {
  const child = spawn(process.execPath, [shopBin, 'serve', '--port', '0'], {
    cwd: dir,
    env: shopEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('close', (code) => reject(new Error(`shop serve exited ${code}: ${out}`)));
  });
  const stop = () =>
    new Promise((resolve) => {
      child.removeAllListeners('close');
      child.on('close', resolve);
      child.kill('SIGTERM');
    });
  return { port, stop };
}

/** One request on loopback: its status, body and wall-clock milliseconds. */
function call(port, path, { cookie, method = 'GET', body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { Cookie: cookie ?? '', ...headers, ...(body ? { 'Content-Length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode, body: text, ms: performance.now() - t, headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A person with access, signed in: the session cookie and its CSRF token. */
async function signIn(dir, port) {
  const added = spawnSync(process.execPath, [shopBin, 'access', 'add', `bench${Date.now()}`], {
    cwd: dir,
    env: shopEnv(),
    encoding: 'utf8',
  });
  const token = /\/login\/([A-Za-z0-9_-]+)/.exec(added.stdout)?.[1];
  if (!token) throw new Error(`shop access add: ${added.stderr}`);
  // The login page's button: a same-origin form post that sets the signed session cookie.
  const login = await call(port, '/login', {
    method: 'POST',
    body: new URLSearchParams({ token }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
  });
  const cookie = [login.headers['set-cookie'] ?? []]
    .flat()
    .find((c) => c.startsWith(`shop_session_${port}=`))
    ?.split(';')[0];
  if (!cookie) throw new Error(`POST /login answered ${login.status}`);
  const session = JSON.parse((await call(port, '/api/session', { cookie })).body);
  return { cookie, csrf: session.csrf };
}

/** P7a — `samples` requests each of GET / (the inbox page) and GET /api/inbox, alternating, after a warm-up (WARM_UP of each). */
export async function inboxRequests(store, samples) {
  const server = await serve(store.dir);
  try {
    const { cookie } = await signIn(store.dir, server.port);
    const page = [];
    const api = [];
    for (let i = 0; i < samples + WARM_UP; i++) {
      const p = await call(server.port, '/', { cookie });
      const a = await call(server.port, '/api/inbox', { cookie });
      if (p.status !== 200 || a.status !== 200) throw new Error(`inbox: ${p.status} / ${a.status}`);
      if (i >= WARM_UP) {
        page.push(p.ms);
        api.push(a.ms);
      }
    }
    return { page, api };
  } finally {
    await server.stop();
  }
}

/** P7b — `samples` runs waiting at a pause, each answered through POST /answer: ms until the run completed. */
export async function answerToResumed(samples) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p7-'));
  spawnSync(process.execPath, [shopBin, 'init'], { cwd: dir, env: shopEnv() });
  writeFileSync(
    join(dir, 'workflows', 'gate.lua'),
    'function workflow(p)\n  local r = pause("Ship " .. p .. "?")\n  return r.continue\nend\n',
  );
  const ids = [];
  for (let i = 0; i < samples; i++) {
    const r = spawnSync(process.execPath, [shopBin, 'run', 'gate', `v${i}`], {
      cwd: dir,
      env: shopEnv(),
      encoding: 'utf8',
    });
    ids.push(Number(/^run (\d+) started/m.exec(r.stdout)[1]));
  }
  const server = await serve(dir);
  const db = new Database(join(dir, '.shop', 'shop.db'), { readonly: true });
  const statusOf = db.prepare('SELECT status FROM runs WHERE id = ?');
  try {
    const { cookie, csrf } = await signIn(dir, server.port);
    const ms = [];
    for (const id of ids) {
      const t = performance.now();
      const body = new URLSearchParams({ handle: `${id}.1`, verb: 'approve', csrf }).toString();
      const r = await call(server.port, '/answer', {
        cookie,
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: `http://127.0.0.1:${server.port}` },
      });
      if (r.status !== 303) throw new Error(`POST /answer: ${r.status} ${r.body.slice(0, 300)}`);
      while (statusOf.get(id).status !== 'completed') await new Promise((res) => setTimeout(res, 5));
      ms.push(performance.now() - t);
    }
    return ms;
  } finally {
    db.close();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bigStore } = await import('./shop-p4-list.mjs');
  const { summary } = await import('./stats.mjs');
  const runs = Number(process.argv[2] ?? 100000);
  const samples = Number(process.argv[3] ?? 20);
  const fmt = (s) =>
    `p50 ${summary(s).value.toFixed(1)} ms, p95 ${summary(s, 95).value.toFixed(1)} ms (min ${summary(s).min.toFixed(1)}, max ${summary(s).max.toFixed(1)})`;
  const { page, api } = await inboxRequests(bigStore(runs), samples);
  console.log(`P7 inbox page, ${runs} runs: ${fmt(page)}`);
  console.log(`P7 /api/inbox, ${runs} runs: ${fmt(api)}`);
  console.log(`P7 answer → run completed through the server: ${fmt(await answerToResumed(Math.min(samples, 10)))}`);
}
