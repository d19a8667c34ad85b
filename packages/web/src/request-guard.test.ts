import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CsrfTokens } from './csrf.js';
import { HttpError } from './http-errors.js';
import { checkHost, checkSameOrigin, originsOf } from './request-guard.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const status = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof HttpError ? e.status : e;
  }
};

describe('request guard', () => {
  const o = originsOf('127.0.0.1', 7878, 'https://shop.example.com');

  it('answers only to its own names: bound host, localhost, the public URL', () => {
    for (const host of ['127.0.0.1:7878', 'localhost:7878', 'LOCALHOST:7878', '[::1]:7878', 'shop.example.com'])
      expect(status(() => checkHost(req({ host }), o))).toBe('ok');
    for (const host of ['evil.test', 'evil.test:7878', '127.0.0.1:7879', 'shop.example.com:7878', ''])
      expect(status(() => checkHost(req({ host }), o))).toBe(421);
  });

  it('a POST comes from our origin, or says same-origin when Chromium sends Origin: null', () => {
    const cases: [Record<string, string>, unknown][] = [
      [{ origin: 'http://127.0.0.1:7878' }, 'ok'],
      [{ origin: 'https://shop.example.com', 'sec-fetch-site': 'same-origin' }, 'ok'],
      [{ origin: 'null', 'sec-fetch-site': 'same-origin' }, 'ok'],
      [{}, 'ok'],
      [{ origin: 'null' }, 403],
      [{ origin: 'null', 'sec-fetch-site': 'cross-site' }, 403],
      [{ origin: 'http://evil.test' }, 403],
      [{ origin: 'http://127.0.0.1:7878', 'sec-fetch-site': 'same-site' }, 403],
      [{ 'sec-fetch-site': 'none' }, 403],
      [{ origin: 'http://shop.example.com' }, 403],
    ];
    for (const [headers, want] of cases)
      expect([headers, status(() => checkSameOrigin(req(headers), o))]).toEqual([headers, want]);
  });

  it('CSRF tokens belong to one session and one server key', () => {
    const a = new CsrfTokens(Buffer.alloc(32, 1));
    const b = new CsrfTokens(Buffer.alloc(32, 2));
    const token = a.tokenFor('session-1');
    expect(status(() => a.check('session-1', token))).toBe('ok');
    expect(status(() => a.check('session-2', token))).toBe(403);
    expect(status(() => b.check('session-1', token))).toBe(403);
    expect(status(() => a.check('session-1', ''))).toBe(403);
    expect(status(() => a.check('session-1', null))).toBe(403);
  });
});
