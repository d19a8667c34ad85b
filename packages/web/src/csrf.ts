import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-errors.js';

/**
 * CSRF tokens: an HMAC of the session (the signed session in the cookie, or an answer link's
 * token) under a key made when the server starts. Nothing to store; another site can't
 * compute one; a restart invalidates the forms on open pages (a reload gets new ones).
 */
export class CsrfTokens {
  constructor(private readonly key: Buffer) {}

  tokenFor(session: string): string {
    return createHmac('sha256', this.key).update(session, 'utf8').digest('base64url');
  }

  check(session: string, given: string | null | undefined) {
    const expected = Buffer.from(this.tokenFor(session));
    const got = Buffer.from(String(given ?? ''));
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new HttpError(
        403,
        'refused: the form is out of date or not from this server (reload the page and try again)',
      );
    }
  }
}
