import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LISTENERS, MAX_LISTENERS_EACH } from './change-feed.js';
import { startServer, type RunningServer } from './server.js';
import type { WebOperations } from './web-operations.js';

/**
 * The live-update slots of a real server in this process, on a store whose every session
 * cookie `<name>` signs in as `<name>`: each person has a share of the slots, and the
 * server's own cap still holds when many people fill it.
 */

const ops = {
  now: () => Date.now(),
  changedRuns: async () => [],
  webSession: async (session: string) => ({ name: session }),
} as unknown as WebOperations;

let server: RunningServer | null = null;
const open: (() => void)[] = [];
afterEach(async () => {
  open.splice(0).forEach((close) => close());
  await server?.close();
  server = null;
});

const addresses = new Map<string, string>();

/**
 * GET /events as `name`, from a loopback address of that person's own (one address holds 64
 * connections at most): the status it answers with (the stream is kept open when 200).
 */
function stream(s: RunningServer, name: string): Promise<{ status: number; body: string }> {
  if (!addresses.has(name)) addresses.set(name, `127.0.1.${addresses.size + 1}`);
  const localAddress = addresses.get(name);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        path: '/events',
        agent: false,
        localAddress,
        headers: { Host: `127.0.0.1:${s.port}`, Cookie: `shop_session_${s.port}=${name}` },
      },
      (res) => {
        if (res.statusCode === 200) return resolve({ status: 200, body: '' });
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end();
    open.push(() => req.destroy());
  });
}

describe('live-update slots', () => {
  it(`one person gets ${MAX_LISTENERS_EACH} (429 beyond, saying why); the server's ${MAX_LISTENERS} still bound everyone together (503)`, async () => {
    server = await startServer(
      { ops, publicUrl: null, resumeInBackground: () => {}, staticDir: '/nonexistent', log: () => {}, debug: false },
      { host: '127.0.0.1', port: 0 },
    );
    const s = server;
    const ann = await Promise.all(Array.from({ length: MAX_LISTENERS_EACH }, () => stream(s, 'ann')));
    expect(ann.every((r) => r.status === 200)).toBe(true);
    const more = await stream(s, 'ann');
    expect(more.status).toBe(429);
    expect(JSON.parse(more.body).error).toBe(
      `ann has ${MAX_LISTENERS_EACH} live pages open, the most one person may; close one (its slot comes back at once), or reload later`,
    );
    // Everyone else fills the server, each within their share.
    let n = 0;
    for (let taken = MAX_LISTENERS_EACH; taken < MAX_LISTENERS; taken++)
      expect((await stream(s, `p${Math.floor(n++ / MAX_LISTENERS_EACH)}`)).status).toBe(200);
    const late = await stream(s, 'zoe');
    expect(late.status).toBe(503);
    expect(JSON.parse(late.body).error).toBe('too many live pages open; reload later');
  });
});
