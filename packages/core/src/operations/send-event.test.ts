import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../errors.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { tempDir } from '../testing/temp-dir.js';
import { PERSON } from './answer-rules.js';
import { listSentEvents, sendEvent, type SendEventRequest } from './send-event.js';
import { MAX_EVENT_DATA_BYTES, parseEventData } from './sent-event-rules.js';
import { EventSentJsonSchema, SentEventJsonSchema } from './shapes.js';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

function store(): Store {
  const s = openSqliteStore(join(tempDir('shop-send-event-'), 'shop.db'), () => Date.UTC(2026, 10, 28, 9, 0, 0));
  stores.push(s);
  return s;
}

const req = (over: Partial<SendEventRequest> = {}): SendEventRequest => ({
  name: 'ci.finished',
  sentBy: 'ann',
  channel: 'cli',
  ...over,
});
/** The one line an operation refused with, and that nothing was recorded. */
async function refused(s: Store, request: SendEventRequest, caller = PERSON) {
  const error = await sendEvent(s, caller, request).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(await s.listSentEvents()).toEqual([]);
  expect(error?.message).not.toContain('\n');
  return error;
}

describe('sendEvent', () => {
  it('records the event with its sender and channel, in the documented shape', async () => {
    const s = store();
    const sent = await sendEvent(s, PERSON, req({ key: 'pr-42', data: { conclusion: 'success' }, sendId: 'd-1' }));
    expect(EventSentJsonSchema.parse(sent)).toEqual({
      duplicate: false,
      woke: [],
      event: {
        id: 1,
        name: 'ci.finished',
        key: 'pr-42',
        data: { conclusion: 'success' },
        sent_at: '2026-11-28T09:00:00.000Z',
        sent_by: 'ann',
        channel: 'cli',
        run: null,
        send_id: 'd-1',
      },
    });
    expect(await sendEvent(s, PERSON, req({ sendId: 'd-1', data: 'other' }))).toEqual({ ...sent, duplicate: true });
    expect(await s.listSentEvents()).toHaveLength(1);
  });

  it('refuses a bad name or key, an id that is no token, data over 1 MiB — one line each, nothing recorded', async () => {
    const s = store();
    for (const name of ['', 'ci finished', 'a'.repeat(201), 'ci\nfinished', 'ci/finished']) {
      expect(await refused(s, req({ name }))).toBeInstanceOf(UsageError);
    }
    expect((await refused(s, req({ name: 'ci finished' })))!.message).toBe(
      'the event name "ci finished" holds a character other than A-Z a-z 0-9 _ . : -; give a word such as ci.finished',
    );
    expect((await refused(s, req({ key: 'pr 42' })))!.message).toMatch(/^the event key "pr 42" holds a character/);
    expect(await refused(s, req({ sendId: 'has space' }))).toBeInstanceOf(UsageError);
    const big = 'x'.repeat(MAX_EVENT_DATA_BYTES);
    expect((await refused(s, req({ data: big, dataFrom: '--data' })))!.message).toBe(
      "--data is larger than 1 MiB, the most an event's data may hold; send less (a link to the rest)",
    );
    // Exactly 1 MiB of JSON is fine.
    expect((await sendEvent(s, PERSON, req({ data: big.slice(2) }))).event.data).toHaveLength(MAX_EVENT_DATA_BYTES - 2);
  });

  it('an unknown target run is NotFound, nothing recorded', async () => {
    const s = store();
    const error = await refused(s, req({ runId: 42 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ runId: 42, message: 'no run 42 to send the event to', actions: [{ verb: 'list' }] });
  });

  it('is refused inside an agent step, as answers are (exit 2), nothing recorded', async () => {
    const s = store();
    const error = await refused(s, req(), { agentStep: 'SHOP_AGENT=coder' });
    expect(error).toBeInstanceOf(UsageError);
    expect(error!.message).toBe(
      'shop event send speaks for the world outside the run and cannot run inside an agent step (SHOP_AGENT=coder); agents report with shop report',
    );
  });
});

describe('parseEventData', () => {
  it('parses one JSON value; anything else is one line naming where it came from', () => {
    expect(parseEventData('{"ok": true}', '--data')).toEqual({ ok: true });
    expect(parseEventData('"passed"', '--data')).toBe('passed');
    expect(() => parseEventData('passed', '--data')).toThrow(
      '--data is not JSON; give one JSON value, e.g. {"ok": true} (text goes in double quotes: "passed")',
    );
    expect(() => parseEventData(' '.repeat(MAX_EVENT_DATA_BYTES + 1), '--data-file big.json')).toThrow(
      /^--data-file big.json is larger than 1 MiB/,
    );
  });
});

describe('listSentEvents', () => {
  it('newest first, by name, at most limit; a bad name is refused', async () => {
    const s = store();
    for (const name of ['a', 'b', 'a']) await sendEvent(s, PERSON, req({ name }));
    const all = await listSentEvents(s);
    expect(all.map((e) => SentEventJsonSchema.parse(e).id)).toEqual([3, 2, 1]);
    expect((await listSentEvents(s, { name: 'a' })).map((e) => e.id)).toEqual([3, 1]);
    expect((await listSentEvents(s, { limit: 1 })).map((e) => e.id)).toEqual([3]);
    await expect(listSentEvents(s, { name: 'no good' })).rejects.toThrow(UsageError);
  });
});
