import { ExpiredError, ShopError } from '@shop/core/errors';

/** An answer the server decided on (a refused Host, a missing CSRF token, a body too large). */
export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * Core's typed errors mapped to HTTP once, as the CLI maps them to exit codes: bad input 400,
 * not found 404, already decided or held elsewhere 409 (the one-line message says who answered
 * first), an expired answer link 410. Anything else is 500 and says nothing of the internals.
 */
export function httpFailure(e: unknown): { status: number; message: string } {
  if (e instanceof HttpError) return { status: e.status, message: e.message };
  if (e instanceof ShopError) {
    if (e instanceof ExpiredError) return { status: 410, message: e.message };
    const status = ({ 2: 400, 5: 404, 6: 409 } as Record<number, number>)[e.exitCode];
    if (status) return { status, message: e.message };
  }
  return { status: 500, message: 'internal error; the server log says more' };
}
