import { describe, expect, it } from 'vitest';
import { classifyFailure } from './transient.js';

const overloadedJson =
  'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CZbiHognn1znP8MCgREwD"}';

describe('transient agent failures', () => {
  it("reads Claude Code's result: api_error_status decides, for 429, 5xx and 529", () => {
    expect(classifyFailure({ isError: true, apiStatus: 529, resultText: overloadedJson })).toMatchObject({
      kind: 'overloaded',
      detail: overloadedJson,
    });
    expect(
      classifyFailure({ isError: true, apiStatus: 429, resultText: 'API Error: 429 rate_limit_error' })?.kind,
    ).toBe('rate_limit');
    for (const status of [500, 502, 503, 504])
      expect(classifyFailure({ isError: true, apiStatus: status, resultText: 'x' })?.kind).toBe('server_error');
    // A named status that is not transient is not retried, whatever the text says.
    expect(
      classifyFailure({ isError: true, apiStatus: 400, resultText: 'prompt is too long; rate limited?' }),
    ).toBeNull();
    expect(
      classifyFailure({
        isError: true,
        apiStatus: 403,
        resultText: 'Your organization has disabled Claude subscription access',
      }),
    ).toBeNull();
  });

  it('reads the status from the text of versions without api_error_status, old and new wording', () => {
    expect(classifyFailure({ isError: true, resultText: overloadedJson })?.kind).toBe('overloaded');
    expect(
      classifyFailure({
        isError: true,
        resultText: 'API Error (529 {"type":"error"}) · Retrying in 4 seconds… (attempt 4/10)',
      })?.kind,
    ).toBe('overloaded');
    expect(
      classifyFailure({
        isError: true,
        resultText:
          'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.',
      })?.kind,
    ).toBe('overloaded');
    expect(classifyFailure({ isError: true, resultText: 'API Error: 503 upstream connect error' })?.kind).toBe(
      'server_error',
    );
    expect(classifyFailure({ isError: true, resultText: 'Overloaded' })?.kind).toBe('overloaded');
    expect(classifyFailure({ isError: true, resultText: 'Rate limit reached, try later' })?.kind).toBe('rate_limit');
  });

  it('network errors in the result text or on stderr of a process that failed', () => {
    expect(
      classifyFailure({
        isError: false,
        exitCode: 1,
        stderr: 'TypeError: fetch failed\n  [cause]: Error: read ECONNRESET\n',
      }),
    ).toMatchObject({ kind: 'network', detail: '[cause]: Error: read ECONNRESET' });
    for (const e of ['ETIMEDOUT', 'ENOTFOUND api.anthropic.com', 'socket hang up']) {
      expect(classifyFailure({ isError: false, exitCode: 1, stderr: `Error: ${e}` })?.kind).toBe('network');
    }
    expect(classifyFailure({ isError: true, resultText: 'API Error: Connection error. (fetch failed)' })?.kind).toBe(
      'network',
    );
    // A process that exited 0 did not fail: nothing to retry.
    expect(classifyFailure({ isError: false, exitCode: 0, stderr: 'ECONNRESET' })).toBeNull();
  });

  it('never retries what needs a person: a key, a login, a flag, a plan limit', () => {
    expect(
      classifyFailure({ isError: true, apiStatus: 401, resultText: 'Invalid API key · Please run /login' }),
    ).toBeNull();
    expect(classifyFailure({ isError: true, resultText: 'Invalid API key · Please run /login' })).toBeNull();
    expect(classifyFailure({ isError: false, exitCode: 1, stderr: "error: unknown option '--bogus'" })).toBeNull();
    expect(
      classifyFailure({ isError: true, resultText: 'Not logged in · Please run /login (ECONNRESET earlier)' }),
    ).toBeNull();
    expect(classifyFailure({ isError: true, resultText: 'Claude AI usage limit reached|1767225600' })).toBeNull();
    expect(classifyFailure({ isError: true, resultText: 'the model refused' })).toBeNull();
    expect(classifyFailure({ isError: false, exitCode: 1, stderr: 'Segmentation fault' })).toBeNull();
  });

  it('takes no type for granted: odd fields from the output are ignored', () => {
    expect(
      classifyFailure({ isError: true, apiStatus: '529' as unknown as number, resultText: 42 as unknown as string }),
    ).toBeNull();
    expect(classifyFailure({ isError: true, apiStatus: 529, resultText: null })).toMatchObject({
      kind: 'overloaded',
      detail: 'API status 529',
    });
  });

  it("reads Codex's and Gemini CLI's words too: at capacity, a last status, an API error body; their login and trust errors are not retried", () => {
    expect(
      classifyFailure({ isError: true, resultText: 'Selected model is at capacity. Please try a different model.' })
        ?.kind,
    ).toBe('overloaded');
    expect(
      classifyFailure({
        isError: true,
        resultText: 'exceeded retry limit, last status: 429 Too Many Requests, request id: r1',
      })?.kind,
    ).toBe('rate_limit');
    expect(
      classifyFailure({
        isError: true,
        resultText: "We're currently experiencing high demand, which may cause temporary errors.",
      })?.kind,
    ).toBe('overloaded');
    expect(
      classifyFailure({
        isError: true,
        resultText: '[API Error: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}]',
      })?.kind,
    ).toBe('server_error');
    expect(
      classifyFailure({ isError: true, resultText: '[API Error: {"error":{"code":400,"message":"bad request"}}]' }),
    ).toBeNull();
    expect(
      classifyFailure({
        isError: false,
        exitCode: 41,
        stderr:
          'Please set an Auth method in your /h/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY',
      }),
    ).toBeNull();
    expect(
      classifyFailure({
        isError: false,
        exitCode: 55,
        stderr: 'Gemini CLI is not running in a trusted directory. fetch failed',
      }),
    ).toBeNull();
    expect(
      classifyFailure({
        isError: false,
        exitCode: 1,
        stderr: 'Not inside a trusted directory and --skip-git-repo-check was not specified.',
      }),
    ).toBeNull();
  });
});
