import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, until } from './harness.js';
import { addPerson, openStream, signIn, startServe, type Served } from './serve-harness.js';

/**
 * `shop serve` under abuse (each test failed before its fix): a slowloris from one address,
 * and one person opening every live-update slot.
 */

afterEach(killLeftovers);

/**
 * Slowloris from 127.0.0.2: `count` sockets each sending a request line and then one header
 * line a second, never the blank line that ends the headers; a socket the server closes is
 * opened again after `reopenMs` (a persistent attacker).
 */
function slowloris(s: Served, count: number, reopenMs = 1_000) {
  const sockets = new Set<Socket>();
  const stats = { opened: 0, closedWithin1s: 0, refusedWith408: 0 };
  let stopped = false;
  const open = () => {
    if (stopped) return;
    const at = Date.now();
    let reply = '';
    const sock = connect({ port: s.port, host: '127.0.0.1', localAddress: '127.0.0.2' }, () => {
      stats.opened++;
      sock.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n`);
    });
    const drip = setInterval(() => sock.writable && sock.write('X-Slow: 1\r\n'), 1_000);
    sock.on('data', (d) => (reply += d));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearInterval(drip);
      sockets.delete(sock);
      if (Date.now() - at < 1_000) stats.closedWithin1s++;
      if (reply.startsWith('HTTP/1.1 408')) stats.refusedWith408++;
      setTimeout(open, reopenMs);
    });
    sockets.add(sock);
  };
  for (let i = 0; i < count; i++) open();
  return {
    stats,
    stop() {
      stopped = true;
      for (const sock of sockets) sock.destroy();
    },
  };
}

/** A plain request from 127.0.0.1 on a new connection: its status (0 when refused or cut) and how long it took. */
function probe(s: Served, path: string): Promise<{ status: number; ms: number }> {
  const at = Date.now();
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: s.port, path, agent: false, headers: { Host: `127.0.0.1:${s.port}` }, timeout: 3_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, ms: Date.now() - at }));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, ms: Date.now() - at }));
    req.end();
  });
}

describe('shop serve: a slowloris from one address', () => {
  it('1,000 sockets dripping headers from 127.0.0.2 do not starve 127.0.0.1: every request is answered promptly throughout', async () => {
    const p = makeProject();
    const s = await startServe(p);
    const attack = slowloris(s, 1_000);
    try {
      await until('the attack to connect', () => attack.stats.opened >= 1_000);
      // Past one headers deadline, so the held sockets are cut and opened again meanwhile.
      const answers: { status: number; ms: number }[] = [];
      const end = Date.now() + 7_000;
      while (Date.now() < end) {
        answers.push(await probe(s, '/api/session'));
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(
        answers.filter((a) => a.status !== 401),
        JSON.stringify(answers),
      ).toEqual([]);
      expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(2_000);
      // Beyond its share the attacker's sockets are closed at once; those it keeps are cut at the headers deadline.
      expect(attack.stats.closedWithin1s).toBeGreaterThan(900);
      expect(attack.stats.refusedWith408).toBeGreaterThan(0);
    } finally {
      attack.stop();
    }
  }, 40_000);
});

describe('shop serve: live-update slots', () => {
  it('one person holds at most 16 live pages (429 beyond, saying so); another person still connects', async () => {
    const p = makeProject();
    const s = await startServe(p);
    const ann = await signIn(s, addPerson(p, 'ann'));
    const bob = await signIn(s, addPerson(p, 'bob'));
    const streams = Array.from({ length: 16 }, () => openStream(s, ann.cookie));
    try {
      await until('ann’s 16 streams to open', () => streams.every((st) => st.state.status === 200));
      const more = openStream(s, ann.cookie);
      streams.push(more);
      await until('the 17th to be answered', () => more.state.status !== 0);
      expect(more.state.status).toBe(429);
      await until('its body', () => more.state.ended);
      expect(JSON.parse(more.state.text).error).toMatch(/ann has 16 live pages open.*close one/);
      const bobs = openStream(s, bob.cookie);
      streams.push(bobs);
      await until('bob’s stream to open', () => bobs.state.status === 200);
      // A page closed gives its slot back.
      streams[0].close();
      await expect
        .poll(async () => {
          const again = openStream(s, ann.cookie);
          streams.push(again);
          await until('an answer', () => again.state.status !== 0);
          return again.state.status;
        })
        .toBe(200);
    } finally {
      streams.forEach((st) => st.close());
    }
  });
});
