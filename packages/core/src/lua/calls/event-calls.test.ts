import { describe, expect, it } from 'vitest';
import { eventUrlCall } from './event-url.js';
import { eventValue, waitEventCall } from './wait-event.js';

describe('wait_event and event_url arguments', () => {
  it('take a name and options {key, timeout | expires}; the name and key are the identity', () => {
    expect(waitEventCall.parse(['ci.finished'])).toEqual({
      type: 'wait_event',
      name: 'ci.finished',
      key: null,
      timeout: null,
    });
    const req = waitEventCall.parse(['ci.finished', { key: 'pr-42', timeout: 90 }]);
    expect(req).toEqual({ type: 'wait_event', name: 'ci.finished', key: 'pr-42', timeout: 90 });
    expect(waitEventCall.describe(req as never)).toBe('wait_event("ci.finished", {key = "pr-42"})');
    expect(eventUrlCall.parse(['deploy.done', { expires: 60 }])).toEqual({
      type: 'event_url',
      name: 'deploy.done',
      key: null,
      expires: 60,
    });
  });

  it('refuse what is not a name, an unknown option, a bad key or number — the line says which', () => {
    const w = 'wait_event(name [, {key = K, timeout = seconds}])';
    expect(waitEventCall.parse([42])).toBe(`${w}: name must be a string; got a number`);
    expect(waitEventCall.parse(['ci finished'])).toBe(
      `${w}: name "ci finished" must be 1-200 of A-Z a-z 0-9 _ . : - (as shop event send takes it)`,
    );
    expect(waitEventCall.parse(['ci', 'pr-1'])).toBe(
      `${w}: the options must be a table {key = …, timeout = …}; got a string`,
    );
    expect(waitEventCall.parse(['ci', { keys: 'x' }])).toBe(`${w}: unknown option "keys" (known: key, timeout)`);
    expect(waitEventCall.parse(['ci', { key: 'a b' }])).toBe(
      `${w}: key must be 1-200 of A-Z a-z 0-9 _ . : -; got "a b"`,
    );
    expect(waitEventCall.parse(['ci', { timeout: -1 }])).toBe(
      `${w}: timeout must be 0 to 31622400 seconds (366 days); got -1`,
    );
    expect(waitEventCall.parse(['ci', { timeout: 'soon' }])).toMatch(/timeout must be a number; got a string$/);
    expect(eventUrlCall.parse(['ci', { expires: 0 }])).toBe(
      'event_url(name [, {key = K, expires = seconds}]): expires must be more than 0 seconds',
    );
    expect(eventUrlCall.parse(['ci', { timeout: 5 }])).toMatch(/unknown option "timeout" \(known: key, expires\)$/);
  });

  it('hands the workflow the event as {id, name, key, data, sent_at (epoch seconds), sent_by, channel}', () => {
    expect(
      eventValue({
        id: 3,
        name: 'ci',
        key: null,
        data: { ok: true },
        sentAt: 1_700_000_000_500,
        sentBy: 'ann',
        channel: 'web',
        runId: null,
        sendId: 'x',
      }),
    ).toEqual({
      id: 3,
      name: 'ci',
      key: null,
      data: { ok: true },
      sent_at: 1_700_000_000.5,
      sent_by: 'ann',
      channel: 'web',
    });
  });
});
