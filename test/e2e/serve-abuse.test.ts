import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, makeProject, until } from './harness.js';
import { addPerson, signIn, startServe, type Served } from './serve-harness.js';

/**
 * `shop serve` under abuse (each test failed before its fix): one person opening every
 * live-update slot.
 */

afterEach(killLeftovers);

/** GET /events with a cookie: its status, what the stream has said, and whether the server ended it. */
function openStream(s: Served, cookie: string) {
  const state = { status: 0, text: '', ended: false };
  const req = request({ host: '127.0.0.1', port: s.port, path: '/events', agent: false, headers: { Host: `127.0.0.1:${s.port}`, Cookie: cookie } }, (res) => {
    state.status = res.statusCode!;
    res.setEncoding('utf8');
    res.on('data', (d: string) => (state.text += d));
    res.on('close', () => (state.ended = true));
  });
  req.on('error', () => (state.ended = true));
  req.end();
  return { state, close: () => req.destroy() };
}

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
      await expect.poll(async () => {
        const again = openStream(s, ann.cookie);
        streams.push(again);
        await until('an answer', () => again.state.status !== 0);
        return again.state.status;
      }).toBe(200);
    } finally {
      streams.forEach((st) => st.close());
    }
  });
});
