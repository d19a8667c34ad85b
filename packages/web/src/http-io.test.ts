import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { discardBody, MAX_DISCARD_BYTES, readRawBody } from './http-io.js';

/** A request whose body is `chunks`, on a socket that records being cut. */
function request(chunks: Buffer[], headers: Record<string, string> = {}) {
  const socket = { cut: false, destroy: () => void (socket.cut = true) };
  const req = Object.assign(Readable.from(chunks, { objectMode: false }), { headers, socket });
  return { req: req as unknown as IncomingMessage, socket };
}

const ended = (req: IncomingMessage) => new Promise((ok) => req.once('end', ok));

describe('a refused body', () => {
  it('is 413 past its bound, the request left open for the rest to be dropped', async () => {
    const { req } = request([Buffer.alloc(600), Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(readRawBody(req, 1000)).rejects.toMatchObject({ status: 413 });
    expect(req.destroyed).toBe(false);
    expect(discardBody(req)).toBe(true);
    await ended(req);
  });

  it('is dropped up to MAX_DISCARD_BYTES; past that the connection is cut', async () => {
    const mib = Buffer.alloc(1024 * 1024);
    const within = request(Array.from({ length: MAX_DISCARD_BYTES / mib.length }, () => mib));
    expect(discardBody(within.req)).toBe(true);
    await ended(within.req);
    expect(within.socket.cut).toBe(false);
    const past = request(Array.from({ length: MAX_DISCARD_BYTES / mib.length + 1 }, () => mib));
    expect(discardBody(past.req)).toBe(true);
    await ended(past.req);
    expect(past.socket.cut).toBe(true);
  });

  it('declared past MAX_DISCARD_BYTES is not read: the caller closes the connection', () => {
    const { req } = request([], { 'content-length': String(MAX_DISCARD_BYTES + 1) });
    expect(discardBody(req)).toBe(false);
  });
});
