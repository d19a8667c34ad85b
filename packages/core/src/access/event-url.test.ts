import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExpiredError, NotFoundError, UsageError } from '../errors.js';
import { PERSON } from '../operations/answer-rules.js';
import { sendByEventUrl } from '../operations/send-event.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { tempDir } from '../testing/temp-dir.js';
import { EVENT_URL_TTL_MS, eventUrl, verifyEventUrl } from './event-url.js';
import { answerLinkToken } from './answer-link.js';
import { setPublicUrl } from './public-url.js';

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function fresh() {
  const clock = {
    t: 1_700_000_000_000,
    now() {
      return this.t;
    },
  };
  const store = openSqliteStore(join(tempDir('shop-event-url-'), 'shop.db'), () => clock.t);
  open.push(store);
  const run = await store.createRun({
    spec: 'ship',
    workflowPath: '/p/workflows/ship.lua',
    workflowHash: null,
    prompt: 'x',
    workspace: '/p',
    branch: null,
    seed: 1,
    owner: { token: 't', host: 'h', pid: 1, pidStart: null },
    leaseMs: 60_000,
    actor: 'ann',
  });
  return { store, clock, target: { runId: run.id, key: '3/1', name: 'deploy.done', eventKey: 'prod' } };
}
const tokenOf = (url: string) => url.split('/e/')[1]!;

describe('event URLs', () => {
  it('without a public address, making one is one line saying how to set it', async () => {
    const { store, clock, target } = await fresh();
    const made = eventUrl(store, clock, target);
    await expect(made).rejects.toThrow(UsageError);
    await expect(made).rejects.toThrow(
      'event_url needs the address people and machines reach shop serve at; record it once with: shop serve --public-url https://shop.example.com',
    );
  });

  it('is made under the public address, names its run, call, event and key, and expires in 7 days by default', async () => {
    const { store, clock, target } = await fresh();
    await setPublicUrl(store, 'https://shop.example.com/');
    const url = await eventUrl(store, clock, target);
    expect(url).toMatch(/^https:\/\/shop\.example\.com\/e\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyEventUrl(store, clock, tokenOf(url))).toEqual({
      ...target,
      expiresAt: clock.t + EVENT_URL_TTL_MS,
    });
  });

  it('sends its event to its run once: a second POST is refused (410) with nothing recorded', async () => {
    const { store, clock, target } = await fresh();
    await setPublicUrl(store, 'https://shop.example.com');
    const token = tokenOf(await eventUrl(store, clock, target, 60_000));
    const sent = await sendByEventUrl(store, clock, PERSON, token, { version: '1.4.2' });
    expect(sent.event).toMatchObject({
      name: 'deploy.done',
      key: 'prod',
      data: { version: '1.4.2' },
      run: target.runId,
      channel: 'url',
      sent_by: 'event URL',
      send_id: `url:${target.runId}.3/1`,
    });
    const again = sendByEventUrl(store, clock, PERSON, token, { version: 'other' });
    await expect(again).rejects.toThrow(ExpiredError);
    await expect(again).rejects.toThrow(
      /^this event URL was used at .+ \(event 1\); it sends one event, once — nothing new was recorded$/,
    );
    expect(await store.listSentEvents()).toHaveLength(1);
  });

  it('an expired, forged or other-kind token is refused with nothing recorded; a run that is gone is NotFound', async () => {
    const { store, clock, target } = await fresh();
    await setPublicUrl(store, 'https://shop.example.com');
    const token = tokenOf(await eventUrl(store, clock, target, 60_000));
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    // An answer link is signed by another key: it is no event URL.
    const answerLink = await answerLinkToken(store, clock, { runId: target.runId, key: '3/1', ask: 1 });
    for (const bad of [forged, 'nonsense', `${token}x`, answerLink]) {
      await expect(sendByEventUrl(store, clock, PERSON, bad, null)).rejects.toThrow(
        'not a valid event URL (mistyped, cut, or not made by this Shop); nothing was recorded',
      );
    }
    clock.t += 60_000;
    await expect(sendByEventUrl(store, clock, PERSON, token, null)).rejects.toThrow(ExpiredError);
    const gone = tokenOf(await eventUrl(store, clock, { ...target, runId: 999 }));
    await expect(sendByEventUrl(store, clock, PERSON, gone, null)).rejects.toThrow(NotFoundError);
    expect(await store.listSentEvents()).toEqual([]);
  });
});
