import { describe, expect, it } from 'vitest';
import { ConflictError, LostOwnershipError, NotFoundError, RunNotFoundError, UsageError } from '@shop/core';
import { errorLine } from './error-line.js';

describe('errors as the CLI prints them', () => {
  it("core's words, then each suggested action as the exact shop command", () => {
    expect(errorLine(new RunNotFoundError(999))).toBe('no run 999; see runs with: shop list');
    expect(errorLine(new RunNotFoundError(77, 'no run 77 to send the event to'))).toBe(
      'no run 77 to send the event to; see runs with: shop list',
    );
    expect(errorLine(new LostOwnershipError(4))).toBe(
      'run 4 was taken over by another driver while this one was not running; this one stopped without writing; see: shop status 4',
    );
    expect(
      errorLine(new ConflictError('run 3 is being driven by x', [{ verb: 'stop', handle: '3', needs: 'reason' }])),
    ).toBe('run 3 is being driven by x; wait for it, or stop it with: shop stop 3 --reason "…"');
    expect(errorLine(new ConflictError('run 3 call 1: coder is at work', [{ verb: 'follow', handle: '3' }]))).toBe(
      'run 3 call 1: coder is at work; wait for it: shop log -f 3',
    );
    expect(
      errorLine(
        new UsageError('coder awaits input ("Q?"): give the words it needs', [
          { verb: 'answer', handle: '7.2', needs: 'message' },
        ]),
      ),
    ).toBe('coder awaits input ("Q?"): give the words it needs, e.g. shop answer 7.2 "…"');
    expect(
      errorLine(
        new UsageError('rejecting sends coder back to work: say what to change', [
          { verb: 'reject', handle: '7.2', needs: 'message' },
        ]),
      ),
    ).toBe('rejecting sends coder back to work: say what to change, e.g. shop reject 7.2 "…"');
    expect(
      errorLine(
        new UsageError('approving needs every decision: d3: required', [
          { verb: 'decide', handle: '5.1', needs: 'answers', decisions: ['d1', 'd3'] },
        ]),
      ),
    ).toBe(
      `approving needs every decision: d3: required; give them with: shop signal 5.1 --answers '{"d1": …, "d3": …}'`,
    );
    expect(errorLine(new NotFoundError('no one named "bo" has access', [{ verb: 'access-list' }]))).toBe(
      'no one named "bo" has access; see: shop access list',
    );
    expect(errorLine(new ConflictError('ann already has access', [{ verb: 'access-revoke', handle: 'ann' }]))).toBe(
      'ann already has access; to give them a new link: shop access revoke "ann", then add them again',
    );
    expect(errorLine(new UsageError('event_url needs an address', [{ verb: 'set-public-url' }]))).toBe(
      'event_url needs an address; record it once with: shop serve --public-url https://shop.example.com',
    );
    expect(errorLine(new NotFoundError('unknown workflow "x": no w/x.lua', [{ verb: 'init' }]))).toBe(
      'unknown workflow "x": no w/x.lua (run `shop init` to create examples)',
    );
  });

  it('an error without actions is its message alone', () => {
    expect(errorLine(new UsageError('bad value'))).toBe('bad value');
  });
});
