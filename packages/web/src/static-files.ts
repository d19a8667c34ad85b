import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError } from './http-errors.js';
import type { Ctx } from './request-context.js';

/** The types we serve, fixed by extension (nosniff: the browser takes them as said). */
const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  webmanifest: 'application/manifest+json',
};

/** A plain file name: no folder, no dot first, a known extension. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\.([a-z]+)$/;

/** GET /static/<file>: a file of packages/web/static, nothing else (no path reaches outside it). */
export async function staticRoute(c: Ctx, [name]: string[]) {
  const type = TYPES[NAME.exec(name)?.[1] ?? ''];
  if (!type) throw new HttpError(404, `no file ${JSON.stringify(name.slice(0, 60))} here`);
  let body: Buffer;
  try {
    body = await readFile(join(c.deps.staticDir, name));
  } catch {
    throw new HttpError(404, `no file ${JSON.stringify(name.slice(0, 60))} here`);
  }
  // Revalidated on each page load, so a new Shop's files are picked up.
  c.res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': 'no-cache' }).end(body);
}
