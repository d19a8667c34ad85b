#!/usr/bin/env node
// A fixed scenario through the built `shop` binary and `shop serve` — runs, asks, answers, claims,
// events, stop, resume, prune — printing every command's exit code and output and every /api/* body,
// with times, tokens, ports and paths normalised. Run it on two commits and diff the outputs to show
// that a reshaping changed nothing a user or a script sees:
//   node scripts/golden-scenario.mjs > after.txt   (from the checkout under test, built)
//   node scripts/golden-scenario.mjs --repo ../old > before.txt && diff before.txt after.txt
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const at = process.argv.indexOf('--repo');
const repo = resolve(at > 0 ? process.argv[at + 1] : process.cwd());
const shopBin = join(repo, 'packages', 'cli', 'bin', 'shop');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shop-golden-')));
const env = {
  ...process.env,
  SHOP_CLAUDE_BIN: join(repo, 'scripts', 'claude-standin.mjs'),
  SHOP_CODEX_BIN: join(repo, 'scripts', 'codex-standin.mjs'),
  SHOP_GEMINI_BIN: join(repo, 'scripts', 'gemini-standin.mjs'),
  SHOP_STANDIN_LOG: join(dir, 'standin.jsonl'),
  CLAUDE_CONFIG_DIR: join(dir, '.claude-config'),
  SHOP_USER: 'tester',
  SHOP_DEBUG: '',
  TZ: 'UTC',
  PATH: (process.env.PATH ?? '')
    .split(':')
    .filter((d) => !d.includes('node_modules/.bin'))
    .join(':'),
};
for (const k of ['SHOP_HOME', 'SHOP_STANDIN_SCENARIO', 'FORCE_COLOR', 'NO_COLOR', 'SHOP_STANDIN_PACE_MS'])
  delete env[k];

let port = 0;
const normal = (text) =>
  text
    .replaceAll(dir, '<DIR>')
    .replaceAll(repo, '<REPO>')
    .replaceAll(hostname(), '<HOST>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?/g, '<TIME>')
    .replace(/\b\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?\b/g, '<TIME>')
    .replace(/\b\d\d:\d\d(:\d\d)?\b/g, '<HH:MM>')
    .replace(port ? new RegExp(`\\b${port}\\b`, 'g') : /$^/g, '<PORT>')
    .replace(/[A-Za-z0-9_-]{32,}/g, '<TOKEN>')
    .replace(
      /"(started_at|ended_at|at|created_at|updated_at|since|age_ms|duration_ms|elapsed_ms|ms|pid|lease_until|expires_at|last_seen|answered_at|asked_at|claimed_at|until|seed|due_at|sent_at|stored_bytes|taken_at|woken_at)":\s*("[^"]*"|-?\d+(\.\d+)?)/g,
      '"$1":<V>',
    )
    .replace(/\b\d+(\.\d+)?\s?(ms|s|m|h|d)\b( ago)?/g, '<DUR>')
    .replace(/\bpid \d+/g, 'pid <PID>')
    // A table's columns are as wide as their widest value, and durations vary in width.
    .replace(/(\S) {2,}/g, '$1 ');

const out = [];
const show = (title, body) => out.push(`### ${title}\n${normal(body).trimEnd()}\n`);

function shop(args, extra = {}) {
  const r = spawnSync(process.execPath, [shopBin, ...args], {
    cwd: dir,
    env: { ...env, ...extra },
    encoding: 'utf8',
    timeout: 60_000,
  });
  show(`shop ${args.join(' ')} → ${r.status}`, `${r.stdout}${r.stderr ? `\n[stderr]\n${r.stderr}` : ''}`);
  return r;
}

function http(path, { method = 'GET', body, cookie, headers = {} } = {}) {
  const h = { Host: `127.0.0.1:${port}`, ...headers };
  if (cookie) h.Cookie = cookie;
  if (body !== undefined) h['Content-Length'] = String(Buffer.byteLength(body));
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: h }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (d) => (text += d));
      r.on('end', () => res({ status: r.statusCode, headers: r.headers, body: text }));
    });
    req.on('error', rej);
    req.end(body);
  });
}
async function api(path, opts) {
  const r = await http(path, opts);
  show(`${opts?.method ?? 'GET'} ${path} → ${r.status}`, r.body);
  return r;
}

const GATE =
  'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n';
const WAITS =
  'function workflow(prompt)\n  local e = wait_event("ci.done", { key = prompt, timeout = 3600 })\n  return { ok = e.data.ok }\nend\n';

async function main() {
  shop(['init']);
  mkdirSync(join(dir, 'workflows'), { recursive: true });
  writeFileSync(join(dir, 'workflows', 'gate.lua'), GATE);
  writeFileSync(join(dir, 'workflows', 'waits.lua'), WAITS);
  shop(['run', 'gate', 'v1']);
  shop(['run', 'gate', 'v2']);
  shop(['run', 'gate', 'v3']);
  shop(['run', 'feature', 'add a flag']);
  shop(['run', 'waits', 'pr-1']);
  shop(['run', 'nope', 'x']);
  for (const args of [
    ['list'],
    ['list', '--json'],
    ['inbox'],
    ['inbox', '--json'],
    ['status', '1'],
    ['status', '1', '--json'],
    ['status', '4', '--json'],
    ['log', '1', '--json'],
    ['workers', '--json'],
    ['event', 'list', '--json'],
  ])
    shop(args);
  shop(['claim', '1.1']);
  shop(['claim', '1.1'], { SHOP_USER: 'bob' });
  shop(['inbox', '--json']);
  shop(['claim', '1.1', '--release']);
  shop(['approve', '1.1', '--by', 'ann']);
  shop(['approve', '1.1', '--by', 'ann']);
  shop(['reject', '2.1', 'not now', '--by', 'ann']);
  shop(['stop', '3', '--reason', 'wrong branch']);
  shop(['status', '3', '--json']);
  shop(['event', 'send', 'ci.done', '--key', 'pr-1', '--data', '{"ok":true}', '--id', 'd1']);
  shop(['event', 'send', 'ci.done', '--key', 'pr-1', '--data', '{"ok":true}', '--id', 'd1']);
  shop(['resume', '5']);
  shop(['resume', '99']);
  shop(['status', '99', '--json']);
  shop(['approve', '1.9']);
  for (const args of [
    ['list', '--json'],
    ['log', '2', '--json'],
    ['log', '5', '--json'],
    ['status', '4', '--json'],
  ])
    shop(args);

  // The web inbox: a person signs in and reads every /api body; answers one ask and sends an event.
  shop(['run', 'gate', 'v4']);
  shop(['run', 'waits', 'pr-2']);
  const add = spawnSync(process.execPath, [shopBin, 'access', 'add', 'ann'], { cwd: dir, env, encoding: 'utf8' });
  const token = /\/login\/([A-Za-z0-9_-]+)/.exec(add.stdout)?.[1];
  const serve = spawn(process.execPath, [shopBin, 'serve', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  serve.stdout.on('data', (d) => (said += d));
  serve.stderr.on('data', (d) => (said += d));
  for (let i = 0; i < 200 && !/listening on http:\/\/127\.0\.0\.1:\d+/.test(said); i++)
    await new Promise((r) => setTimeout(r, 50));
  port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(said)?.[1]);
  try {
    const login = await http('/login', {
      method: 'POST',
      body: new URLSearchParams({ token }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    });
    const cookie = [login.headers['set-cookie'] ?? []]
      .flat()
      .find((c) => c.startsWith(`shop_session_${port}=`))
      ?.split(';')[0];
    const session = await api('/api/session', { cookie });
    const csrf = JSON.parse(session.body).csrf;
    for (const path of [
      '/api/inbox',
      '/api/runs',
      '/api/runs/1',
      '/api/runs/6',
      '/api/runs/6/log',
      '/api/runs/999',
      '/api/runs?status=waiting_human',
    ])
      await api(path, { cookie });
    const json = {
      cookie,
      headers: {
        'Content-Type': 'application/json',
        Origin: `http://127.0.0.1:${port}`,
        'Sec-Fetch-Site': 'same-origin',
        'X-CSRF-Token': csrf,
      },
    };
    await api('/api/answer', { ...json, method: 'POST', body: JSON.stringify({ handle: '6.1', verdict: 'approved' }) });
    await api('/api/answer', { ...json, method: 'POST', body: JSON.stringify({ handle: '6.1', verdict: 'approved' }) });
    await api('/api/answer', { ...json, method: 'POST', body: JSON.stringify({ handle: 'x.y', verdict: 'approved' }) });
    await api('/api/events', {
      ...json,
      method: 'POST',
      body: JSON.stringify({ name: 'ci.done', key: 'pr-2', data: { ok: false }, id: 'd2' }),
    });
    await api('/api/events', { ...json, method: 'POST', body: JSON.stringify({ name: '' }) });
    await api('/api/runs', { cookie });
  } finally {
    serve.kill('SIGTERM');
  }
  // The web's answer resumes run 6 in the background: wait for its end before anything reads it.
  for (let i = 0; i < 200; i++) {
    const r = spawnSync(process.execPath, [shopBin, 'status', '6', '--json'], { cwd: dir, env, encoding: 'utf8' });
    if (/"status": "(completed|failed|stuck)"/.test(r.stdout)) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  shop(['resume', '7']);
  shop(['prune', '--dry-run']);
  shop(['prune', '--older-than', '0s']);
  shop(['prune', '--older-than', '0s', '--json']);
  shop(['list', '--json']);
  process.stdout.write(out.join('\n'));
}

main().finally(() => rmSync(dir, { recursive: true, force: true }));
