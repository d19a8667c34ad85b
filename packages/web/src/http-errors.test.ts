import { describe, expect, it } from 'vitest';
import {
  BudgetSpent,
  ClaimedError,
  ConflictError,
  ExpiredError,
  InvalidAnswersError,
  LostOwnershipError,
  NotFoundError,
  RunNotFoundError,
  SessionHeldError,
  ShopError,
  StoreError,
  UsageError,
} from '@shop/core';
import { HttpError, httpFailure, webErrorText } from './http-errors.js';
import { cookie, readFlash } from './cookies.js';

describe('errors to HTTP, once', () => {
  it('maps core typed errors to statuses with their one-line message; anything else is 500 without internals', () => {
    expect(httpFailure(new UsageError('bad value'))).toEqual({ status: 400, message: 'bad value' });
    expect(httpFailure(new NotFoundError('no run 9'))).toEqual({ status: 404, message: 'no run 9' });
    expect(httpFailure(new ConflictError('answered by ann'))).toEqual({ status: 409, message: 'answered by ann' });
    expect(httpFailure(new SessionHeldError(1, '2', 'held by bob'))).toEqual({ status: 409, message: 'held by bob' });
    expect(httpFailure(new LostOwnershipError(3)).status).toBe(409);
    expect(httpFailure(new ExpiredError('link expired'))).toEqual({ status: 410, message: 'link expired' });
    expect(httpFailure(new HttpError(421, 'wrong host'))).toEqual({ status: 421, message: 'wrong host' });
    for (const e of [
      new Error('SQLITE_CORRUPT at /home/me/.shop/shop.db'),
      new ShopError('engine detail'),
      new BudgetSpent(1, 2),
      new StoreError('locked', 'f', 'SQLITE_BUSY'),
      'thrown string',
      null,
    ]) {
      expect(httpFailure(e)).toEqual({ status: 500, message: 'internal error; the server log says more' });
    }
  });
});

describe("errors in the web's words", () => {
  it('by class, not exit code: a subclass takes its nearest mapped ancestor', () => {
    expect(
      httpFailure(new ClaimedError('3.1', { by: 'ann', channel: 'web', since: 0, until: 1 }, 'ann is on 3.1')).status,
    ).toBe(409);
    expect(
      httpFailure(new InvalidAnswersError('invalid answers', [{ path: 'd', message: 'must be a number' }])).status,
    ).toBe(400);
    expect(httpFailure(new RunNotFoundError(9)).status).toBe(404);
  });

  it('suggested actions point at pages, never at a shop command a browser cannot run', () => {
    expect(httpFailure(new RunNotFoundError(9)).message).toBe('no run 9; see the runs page');
    expect(httpFailure(new LostOwnershipError(3)).message).toMatch(/; see run 3's page$/);
    expect(
      webErrorText(new ConflictError('run 3 is being driven by x', [{ verb: 'stop', handle: '3', needs: 'reason' }])),
    ).toBe("run 3 is being driven by x; wait for it, or stop it on run 3's page");
    // Machines (the API) get the wording the composition root gives: shop serve gives the CLI's line.
    expect(
      httpFailure(new RunNotFoundError(9), (e) => `${e.message} [${e.actions.map((a) => a.verb).join()}]`),
    ).toEqual({ status: 404, message: 'no run 9 [list]' });
    expect(
      webErrorText(new UsageError('give the words it needs', [{ verb: 'answer', handle: '7.2', needs: 'message' }])),
    ).toBe('give the words it needs');
  });
});

describe('cookies', () => {
  it('are HttpOnly and SameSite=Strict, Secure when asked', () => {
    expect(cookie('a', 'b', { secure: false })).toBe('a=b; Path=/; HttpOnly; SameSite=Strict');
    expect(cookie('a', 'b', { secure: true, maxAge: 60 })).toBe(
      'a=b; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=60',
    );
  });

  it('a flash cookie that is not ours is ignored', () => {
    const jar = (v: string) => new Map([['shop_flash', v]]);
    const ok = Buffer.from(JSON.stringify({ k: 'ok', t: 'Approved 3.1' })).toString('base64url');
    expect(readFlash(jar(ok))).toEqual({ kind: 'ok', text: 'Approved 3.1' });
    for (const bad of [
      '%%%',
      Buffer.from('{"k":"evil","t":"x"}').toString('base64url'),
      Buffer.from('[1]').toString('base64url'),
      '',
    ])
      expect(readFlash(jar(bad))).toBeNull();
  });
});
