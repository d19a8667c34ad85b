import { ConflictError, ExpiredError, LostOwnershipError, NotFoundError, ShopError, UsageError } from '@shop/core';
import type { SuggestedAction } from '@shop/core';

/** An answer the server decided on (a refused Host, a missing CSRF token, a body too large). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Core's typed errors by class, as HTTP statuses: bad input 400, not found 404, already
 * decided or held elsewhere 409 (the one-line message says who answered first), an expired
 * answer link 410. The first class an error is an instance of wins: ExpiredError before the
 * ConflictError it extends. Any other error is 500.
 */
const STATUS_BY_CLASS: readonly (readonly [abstract new (...args: never[]) => ShopError, number])[] = [
  [ExpiredError, 410],
  [UsageError, 400],
  [NotFoundError, 404],
  [ConflictError, 409],
  [LostOwnershipError, 409],
];

/**
 * Core's typed errors mapped to HTTP once, as the CLI maps them to exit codes, the message in
 * `words` (the pages' by default); anything else says nothing of the internals.
 */
export function httpFailure(
  e: unknown,
  words: (e: ShopError) => string = webErrorText,
): { status: number; message: string } {
  if (e instanceof HttpError) return { status: e.status, message: e.message };
  const status = e instanceof ShopError ? STATUS_BY_CLASS.find(([kind]) => e instanceof kind)?.[1] : undefined;
  if (status && e instanceof ShopError) return { status, message: words(e) };
  return { status: 500, message: 'internal error; the server log says more' };
}

/** Core's words, then what a person may do about it, in the web's words (its pages, not command lines). */
export function webErrorText(e: ShopError): string {
  return e.message + e.actions.map(webActionWords).join('');
}

function webActionWords(a: SuggestedAction): string {
  switch (a.verb) {
    case 'list':
      return '; see the runs page';
    case 'status':
      return `; see run ${a.handle}'s page`;
    case 'follow':
      return `; wait for it (run ${a.handle}'s page follows it)`;
    case 'stop':
      return `; wait for it, or stop it on run ${a.handle}'s page`;
    // The ask's form is where the words go: nothing to add.
    case 'answer':
    case 'reject':
    case 'decide':
      return '';
    // Done on the server's machine, not from a page: said as the command there.
    case 'access-list':
      return "; the server's machine lists them with: shop access list";
    case 'access-revoke':
      return `; to give them a new link, revoke it on the server's machine (shop access revoke ${JSON.stringify(a.handle)}), then add them again`;
    case 'set-public-url':
      return "; record it once on the server's machine with: shop serve --public-url https://shop.example.com";
    case 'init':
      return "; make the folder a project on the server's machine with: shop init";
  }
}
