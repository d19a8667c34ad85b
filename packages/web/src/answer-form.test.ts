import { describe, expect, it } from 'vitest';
import { RunNotFoundError, UsageError } from '@shop/core';
import { answerPosted, openAskRow } from './answer-form.js';
import type { ServerDeps } from './server-deps.js';
import type { WebOperations } from './web-operations.js';

/** A server whose only run is none: every read of a run says so, as the store would. */
function deps(reads: number[]): ServerDeps {
  const ops = {
    openAsk: async (handle: string) => {
      throw new UsageError(`"${handle}" is not an ask handle`);
    },
    runDetail: async (id: number) => {
      reads.push(id);
      throw new RunNotFoundError(id);
    },
  } as Partial<WebOperations> as WebOperations;
  return {
    ops,
    publicUrl: null,
    resumeInBackground: () => undefined,
    staticDir: '',
    log: () => undefined,
    debug: false,
  };
}

describe('an answer posted with a malformed handle', () => {
  it('is refused for its handle (400), never read as the run its leading digits spell (404)', async () => {
    const reads: number[] = [];
    const d = deps(reads);
    await expect(answerPosted(d, '999x', new URLSearchParams(), 'web', 'ann')).rejects.toBeInstanceOf(UsageError);
    // What the route does after a refusal: the ask's page again, if the handle names an open ask.
    await expect(openAskRow(d, '999x')).resolves.toBeNull();
    await expect(openAskRow(d, '1e3')).resolves.toBeNull();
    expect(reads).toEqual([]);
  });
});
