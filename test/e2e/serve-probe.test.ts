import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, runId, startWorker, trail, until, type Project } from './harness.js';
import { addPerson, openStream, http, postForm, signIn, startServe, type Served } from './serve-harness.js';

/** Defects found by probing `shop serve` as an attacker and a careless user would; each test failed before its fix. */

const GATE = 'function workflow(prompt)\n  return pause("Ship " .. prompt .. "?")\nend\n';

describe('shop serve under attack', () => {
  let p: Project;
  let s: Served;
  beforeAll(async () => {
    p = makeProject();
    p.write('workflows/gate.lua', GATE);
    s = await startServe(p);
  });
  const streams: { close(): void }[] = [];
  afterAll(() => streams.forEach((st) => st.close()));

  it('a revoked person’s open live stream is ended: it says nothing more of the runs', async () => {
    const eve = await signIn(s, addPerson(p, 'eve'));
    const ann = await signIn(s, addPerson(p, 'ann'));
    const eveStream = openStream(s, eve.cookie);
    const annStream = openStream(s, ann.cookie);
    streams.push(eveStream, annStream);
    await until(
      'both streams to open',
      () => eveStream.state.text.startsWith('retry:') && annStream.state.text.startsWith('retry:'),
    );
    expect(p.shop(['access', 'revoke', 'eve']).code).toBe(0);
    eveStream.state.text = '';
    const id = runId(p.shop(['run', 'gate', 'secret-release']));
    // Ann, still allowed, hears of the new run; Eve's stream is closed without a word of it.
    await until('ann to hear of the new run', () =>
      new RegExp(`"runs":\\[[\\d,]*\\b${id}\\b`).test(annStream.state.text),
    );
    await until('eve’s stream to end', () => eveStream.state.ended);
    expect(eveStream.state.text).not.toMatch(/event: change/);
    expect(annStream.state.ended).toBe(false);
    // And she can't open another.
    expect((await http(s, '/events', { cookie: eve.cookie })).status).toBe(401);
  });

  it('a decision out of its constraints posted directly (no page checks) is refused with the server’s message; nothing recorded', async () => {
    p.write(
      'workflows/budget.lua',
      'function workflow(p)\n  return pause{message = "Budget", decisions = { { id = "cap", type = "number", prompt = "Cap?", constraints = { min = 1, max = 100 } } }}.answers.cap\nend\n',
    );
    const ann = await signIn(s, addPerson(p, 'ann2'));
    const id = runId(p.shop(['run', 'budget', 'x']));
    const r = await postForm(
      s,
      '/answer',
      { handle: `${id}.1`, verb: 'decide', 'd.cap': '1000', csrf: ann.csrf },
      ann.cookie,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatch(/must be ≤ 100/);
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toEqual([]);
  });
});

describe('a multi_choice answer posted directly', () => {
  it('naming one option twice does not count twice toward "choose at least": refused, nothing recorded', async () => {
    const p = makeProject();
    p.write(
      'workflows/two.lua',
      'function workflow(p)\n  return pause{message = "Where?", decisions = { { id = "m", type = "multi_choice", prompt = "Platforms", options = { "web", "ios", "android" }, constraints = { min = 2 } } }}.answers.m\nend\n',
    );
    const s = await startServe(p);
    const ann = await signIn(s, addPerson(p, 'ann'));
    const id = runId(p.shop(['run', 'two', 'x']));
    const api = await http(s, '/api/answer', {
      method: 'POST',
      cookie: ann.cookie,
      body: JSON.stringify({ handle: `${id}.1`, answers: { m: ['web', 'web'] } }),
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ann.csrf },
    });
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body).error).toMatch(/m: .*once/);
    const form = await http(s, '/answer', {
      method: 'POST',
      cookie: ann.cookie,
      body: `handle=${id}.1&verb=decide&d.m=ios&d.m=ios&csrf=${encodeURIComponent(ann.csrf)}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(form.status).toBe(400);
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toEqual([]);
    // Two different options are an answer.
    const ok = await http(s, '/answer', {
      method: 'POST',
      cookie: ann.cookie,
      body: `handle=${id}.1&verb=decide&d.m=ios&d.m=web&csrf=${encodeURIComponent(ann.csrf)}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(ok.status).toBe(303);
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toHaveLength(1);
  });
});

describe('an inbox of many open asks', () => {
  it('shows the oldest 200, says how many more wait and where to find them; the API has them all', async () => {
    const p = makeProject();
    p.write(
      'workflows/many.lua',
      'function workflow(p)\n  local fs = {}\n  for i = 1, 230 do fs[i] = function() return pause("Ask " .. i) end end\n  return parallel(table.unpack(fs))\nend\n',
    );
    const r = p.shop(['run', 'many', 'x']);
    // Under full-suite load this once ended 0 after printing every ask (the process ran dry while
    // waiting for its output to drain, before it set its exit code): main.ts sets it first now.
    expect(r.code, `${r.stderr}\n${r.stdout.slice(-1500)}`).toBe(3);
    const s = await startServe(p);
    const ann = await signIn(s, addPerson(p, 'ann'));
    const page = await http(s, '/', { cookie: ann.cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<span class="count">230</span>');
    expect(page.body.match(/class="ask card"/g), page.body.slice(0, 2000)).toHaveLength(200);
    expect(page.body).toMatch(/30 more/);
    expect(JSON.parse((await http(s, '/api/inbox', { cookie: ann.cookie })).body)).toHaveLength(230);
  });
});

describe('control characters in text from workflows and agents', () => {
  it("are shown escaped on the pages, as the CLI shows them: a bidi override can't reorder what a person reads", async () => {
    const p = makeProject();
    // "exe.txt" reversed by U+202E reads as an innocent name; ESC and BEL ride along.
    p.write(
      'workflows/spoof.lua',
      'function workflow(p)\n  return pause("Run invoice\\u{202E}txt.exe? \\27]0;pwned\\7 ok")\nend\n',
    );
    const id = runId(p.shop(['run', 'spoof', 'x']));
    const s = await startServe(p);
    const ann = await signIn(s, addPerson(p, 'ann'));
    for (const path of ['/', `/runs/${id}`]) {
      const page = await http(s, path, { cookie: ann.cookie });
      expect(page.body).not.toMatch(/[\u202e\x1b\x07]/);
      expect(page.body).toContain('Run invoice\\u202etxt.exe? \\x1b]0;pwned\\x07 ok');
    }
    // The API carries the exact text: JSON is data.
    expect(JSON.parse((await http(s, '/api/inbox', { cookie: ann.cookie })).body)[0].question).toBe(
      'Run invoice\u202etxt.exe? \x1b]0;pwned\x07 ok',
    );
  });
});

/**
 * One keep-alive connection, by hand: `head`, then body chunks until the server has answered (or
 * all are sent), the rest after, then `next` — each answer's status in order, and any socket error.
 */
function exchange(s: Served, head: string, chunks: string[], next: string) {
  return new Promise<{ statuses: number[]; error: string | null }>((resolve) => {
    const statuses: number[] = [];
    let buf = '';
    let error: string | null = null;
    let answered: () => void = () => undefined;
    const sock = connect(s.port, '127.0.0.1');
    const done = () => {
      sock.destroy();
      resolve({ statuses, error });
    };
    sock.on('error', (e) => {
      error = (e as NodeJS.ErrnoException).code ?? e.message;
      done();
    });
    sock.on('close', done);
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: *(\d+)/i.exec(buf.slice(0, end));
        if (end < 0 || !length || buf.length < end + 4 + Number(length[1])) return;
        statuses.push(Number(buf.slice(9, 12)));
        buf = buf.slice(end + 4 + Number(length[1]));
        answered();
        if (statuses.length === 2) done();
      }
    });
    const write = (text: string) => new Promise<void>((ok) => sock.write(text, () => ok()));
    const first = new Promise<void>((ok) => (answered = ok));
    void (async () => {
      await write(head);
      let i = 0;
      while (i < chunks.length && statuses.length === 0) {
        await Promise.race([write(chunks[i++]), first]);
        await new Promise((r) => setTimeout(r, 5));
      }
      await first;
      for (; i < chunks.length && !error; i++) await write(chunks[i]);
      if (!error) await write(next);
    })();
  });
}

describe('a request refused before its body is read (the client still sending)', () => {
  let p: Project;
  let s: Served;
  beforeAll(async () => {
    p = makeProject();
    s = await startServe(p);
  });
  const next = () => `GET /api/session HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n\r\n`;
  const mib = 'y'.repeat(1024 * 1024);

  it('reads the refusal, not a reset, and the connection answers the next request', async () => {
    const head = `POST /api/events HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\nContent-Length: ${2 * mib.length}\r\n\r\n`;
    // Before the fix: the 401 came, then the connection was closed under the body (EPIPE, ECONNRESET).
    expect(await exchange(s, head, [mib, mib], next())).toEqual({ statuses: [401, 401], error: null });
  });

  it('a body that passes its bound as it streams is 413; the rest is dropped and the connection answers the next request', async () => {
    const ann = await signIn(s, addPerson(p, 'ann'));
    const head = `POST /api/events HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nCookie: ${ann.cookie}\r\nX-CSRF-Token: ${ann.csrf}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = `${(64 * 1024).toString(16)}\r\n${'y'.repeat(64 * 1024)}\r\n`;
    const chunks = [...Array.from({ length: 40 }, () => chunk), '0\r\n\r\n'];
    expect(await exchange(s, head, chunks, next())).toEqual({ statuses: [413, 401], error: null });
  });
});

describe('a client that trickles its headers (slowloris)', () => {
  it('is cut off by the 5 s headers limit, not kept until the 30 s whole-request limit', async () => {
    const p = makeProject();
    const s = await startServe(p);
    const started = Date.now();
    const { reply, lasted } = await new Promise<{ reply: string; lasted: number }>((resolve) => {
      let reply = '';
      const sock = connect(s.port, '127.0.0.1', () => sock.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n`));
      // One more header line a second: the connection is never idle, the headers never end.
      const trickle = setInterval(() => sock.write('X-Slow: 1\r\n'), 1_000);
      const end = () => {
        clearInterval(trickle);
        resolve({ reply, lasted: Date.now() - started });
      };
      sock.on('data', (d) => (reply += d));
      sock.on('close', end);
      sock.on('error', () => undefined);
      setTimeout(() => sock.destroy(), 28_000);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    // Generous: the limit is 5 s, checked every second; before the fix it took ~30 s (then ~10 s).
    expect(lasted).toBeLessThan(9_000);
  }, 40_000);
});

describe('shop serve inside an agent step', () => {
  it('is refused: an agent could point answer links at a site of its choosing (--public-url) and collect them', () => {
    const p = makeProject();
    const r = p.shop(['serve', '--port', '0', '--public-url', 'https://evil.example'], {
      env: { SHOP_AGENT: 'coder' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/agent step/);
    // Nothing recorded: a person's login link still points at this machine.
    expect(p.shop(['access', 'add', 'ann']).stdout).not.toContain('evil.example');
  });
});

describe('an answer whose driver died before taking it in', () => {
  it('is taken up when shop serve starts again: the run goes on, it is not left waiting with nothing to answer', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const id = runId(p.shop(['run', 'gate', 'v1']));
    const s = await startServe(p);
    const ann = await signIn(s, addPerson(p, 'ann'));
    // A live shop watch holds the run, so the server hands the answer to it ...
    const worker = await startWorker(p);
    await until('the worker to hold the run', () => /held here/.test(worker.output()));
    worker.child.kill('SIGSTOP');
    try {
      const r = await http(s, '/api/answer', {
        method: 'POST',
        cookie: ann.cookie,
        body: JSON.stringify({ handle: `${id}.1`, verdict: 'approved' }),
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ann.csrf },
      });
      expect(JSON.parse(r.body).resumed_by).toBe('live_driver');
    } finally {
      // ... and dies before it takes the answer in (as a server killed -9 between the answer and its resume).
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    s.bg.child.kill('SIGKILL');
    await s.bg.exited;
    expect(p.status(id).status).toBe('waiting_human');
    expect(JSON.parse(p.shop(['inbox', '--json']).stdout)).toEqual([]);
    await startServe(p);
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'ann', channel: 'web' }]);
    await killLeftovers();
  });
});
