import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Html } from './html.js';
import { HttpError } from './http-errors.js';

/** Request bodies larger than this are refused (413): an answer is a few kilobytes at most. */
export const MAX_BODY_BYTES = 256 * 1024;
/**
 * A refused request's body is read and dropped up to this much more, so a client still sending it
 * reads the refusal rather than a reset; past it (or declared past it) the connection is cut.
 */
export const MAX_DISCARD_BYTES = 8 * 1024 * 1024;
/** URLs longer than this are refused (414); the longest real one is an answer link (~200). */
export const MAX_URL_CHARS = 4096;

/** The same on every response: nothing runs or loads but our own files; no page frames us; no referrer leaks a link. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function sendHtml(
  res: ServerResponse,
  status: number,
  body: Html | string,
  headers: Record<string, string | string[]> = {},
) {
  send(res, status, 'text/html; charset=utf-8', String(body), headers);
}

export function sendJson(res: ServerResponse, status: number, value: unknown) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value, null, 2), {});
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  headers: Record<string, string | string[]>,
) {
  res.writeHead(status, {
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The whole body, at most MAX_BODY_BYTES (413 beyond, the rest left for `discardBody`). */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return (await readRawBody(req, limit)).toString('utf8');
}

/** The body's bytes as they came (a signature is over them), at most `limit` (413 beyond, the rest left for `discardBody`). */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, `the request body is larger than ${limit / 1024} KiB`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  // Stopping early must not destroy the request: that would cut the connection under the 413.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Whether the rest of a refused request's body can be read and dropped (at most MAX_DISCARD_BYTES
 * more), keeping the connection for the refusal; if not, the caller closes it after answering.
 */
export function discardBody(req: IncomingMessage): boolean {
  if (req.destroyed) return false;
  if (req.readableEnded) return true;
  if (Number(req.headers['content-length'] ?? 0) > MAX_DISCARD_BYTES) return false;
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > MAX_DISCARD_BYTES) req.socket.destroy();
  });
  req.resume();
  return true;
}

export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/** A posted HTML form (application/x-www-form-urlencoded; 415 for anything else). */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (mediaType(req) !== 'application/x-www-form-urlencoded')
    throw new HttpError(415, 'send the form as application/x-www-form-urlencoded');
  return new URLSearchParams(await readBody(req));
}

/** A posted JSON document (application/json; 415 for anything else, 400 when it does not parse, 413 past `limit` bytes). */
export async function readJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (mediaType(req) !== 'application/json') throw new HttpError(415, 'send the body as application/json');
  const text = await readBody(req, limit);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}
