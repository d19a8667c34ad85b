import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExpiredError, UsageError } from '../errors.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { ANSWER_LINK_KEY, ANSWER_LINK_TTL_MS, answerLinkToken, verifyAnswerLink } from './answer-link.js';
import { answerUrl, checkPublicUrl, publicUrl, setPublicUrl } from './public-url.js';
import { tempDir } from '../testing/temp-dir.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function fresh() {
  const file = join(tempDir('shop-link-'), 'shop.db');
  const store = openSqliteStore(file);
  open.push(store);
  const clock = {
    t: 1_700_000_000_000,
    now() {
      return this.t;
    },
  };
  return { file, store, clock };
}

const ask = { runId: 12, key: '4/1/2', ask: 2 };
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('answer links', () => {
  it('verifies to exactly the ask it was made for, with its handle and expiry (7 days by default)', async () => {
    const { store, clock } = fresh();
    const token = await answerLinkToken(store, clock, ask);
    expect(token.length).toBeLessThan(200);
    expect(await verifyAnswerLink(store, clock, token)).toEqual({
      ...ask,
      handle: '12.4/1/2.2',
      expiresAt: clock.t + ANSWER_LINK_TTL_MS,
    });
    const other = await answerLinkToken(store, clock, { runId: 12, key: '4/1/2', ask: 1 });
    expect((await verifyAnswerLink(store, clock, other)).handle).toBe('12.4/1/2');
  });

  it('makes the signing key once per store and keeps it', async () => {
    const { file, store, clock } = fresh();
    expect(await store.getSetting(ANSWER_LINK_KEY)).toBeNull();
    const token = await answerLinkToken(store, clock, ask);
    const key = await store.getSetting(ANSWER_LINK_KEY);
    expect(Buffer.from(key!, 'base64url')).toHaveLength(32);
    await answerLinkToken(store, clock, ask);
    expect(await store.getSetting(ANSWER_LINK_KEY)).toBe(key);
    // Another process on the same store accepts it.
    const other = openSqliteStore(file);
    open.push(other);
    expect((await verifyAnswerLink(other, clock, token)).runId).toBe(12);
  });

  it('refuses a tampered signature or payload, a link for another ask, garbage and over-long input', async () => {
    const { store, clock } = fresh();
    const token = await answerLinkToken(store, clock, ask);
    const [body, sig] = token.split('.');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const forged = [
      `${body}.${flip(sig, 0)}`,
      `${body}.${flip(sig, sig.length - 1)}`,
      `${flip(body, 3)}.${sig}`,
      // The same signature over another ask: the signature does not carry over.
      `${b64({ r: 12, k: '4/1/2', a: 3, e: clock.t + ANSWER_LINK_TTL_MS })}.${sig}`,
      `${b64({ r: 13, k: '4/1/2', a: 2, e: clock.t + ANSWER_LINK_TTL_MS })}.${sig}`,
      body,
      `${body}.`,
      `.${sig}`,
      `${body}.${sig}.x`,
      '',
      'not a link',
      `${body}.${sig}=`,
      `${'A'.repeat(2000)}.${sig}`,
    ];
    for (const t of forged) await expect(verifyAnswerLink(store, clock, t), t.slice(0, 60)).rejects.toThrow(UsageError);
    await expect(verifyAnswerLink(store, clock, `${body}.${flip(sig, 0)}`)).rejects.toThrow('not a valid answer link');
  });

  it('verifying makes no key: a store that never made a link refuses every token', async () => {
    const { store, clock } = fresh();
    await expect(
      verifyAnswerLink(store, clock, `${b64({ r: 1, k: '1', a: 1, e: clock.t + 1000 })}.${'A'.repeat(43)}`),
    ).rejects.toBeInstanceOf(UsageError);
    expect(await store.getSetting(ANSWER_LINK_KEY)).toBeNull();
    await expect(answerLinkToken(store, clock, ask, 0)).rejects.toBeInstanceOf(UsageError);
  });

  it('a link from another store (another key) is not valid here', async () => {
    const a = fresh();
    const b = fresh();
    const token = await answerLinkToken(a.store, a.clock, ask);
    await expect(verifyAnswerLink(b.store, b.clock, token)).rejects.toBeInstanceOf(UsageError);
  });

  it('expires by the clock: valid until its time, ExpiredError (exit 6) from then on', async () => {
    const { store, clock } = fresh();
    const token = await answerLinkToken(store, clock, ask, 60_000);
    clock.t += 59_999;
    expect((await verifyAnswerLink(store, clock, token)).key).toBe('4/1/2');
    clock.t += 1;
    const err = await verifyAnswerLink(store, clock, token).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExpiredError);
    expect((err as ExpiredError).exitCode).toBe(6);
    expect((err as Error).message).toContain('12.4/1/2.2');
    // Default: 7 days.
    const week = await answerLinkToken(store, clock, ask);
    clock.t += 7 * 24 * 3600 * 1000;
    await expect(verifyAnswerLink(store, clock, week)).rejects.toBeInstanceOf(ExpiredError);
  });
});

describe('the public URL', () => {
  it('is recorded trimmed, and an answer URL is made only once it is', async () => {
    const { store, clock } = fresh();
    expect(await publicUrl(store)).toBeNull();
    expect(await answerUrl(store, clock, ask)).toBeNull();
    expect(await setPublicUrl(store, 'https://shop.example.com/team/')).toBe('https://shop.example.com/team');
    expect(await publicUrl(store)).toBe('https://shop.example.com/team');
    const url = await answerUrl(store, clock, ask);
    expect(url).toMatch(/^https:\/\/shop\.example\.com\/team\/a\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyAnswerLink(store, clock, url!.split('/a/')[1])).toMatchObject(ask);
  });

  it('takes only http(s) URLs without credentials, query or fragment', async () => {
    const { store } = fresh();
    expect(checkPublicUrl('http://127.0.0.1:7878')).toBe('http://127.0.0.1:7878');
    expect(checkPublicUrl('https://Shop.Example.com///')).toBe('https://shop.example.com');
    for (const bad of [
      'shop.example.com',
      'ftp://x.com',
      'javascript:alert(1)',
      'https://u:p@x.com',
      'https://u@x.com',
      'https://x.com/?a=1',
      'https://x.com/?',
      'https://x.com/#top',
      'https://x.com/#',
      '',
      `https://x.com/${'a'.repeat(2100)}`,
    ]) {
      await expect(setPublicUrl(store, bad), bad.slice(0, 40)).rejects.toBeInstanceOf(UsageError);
    }
    expect(await publicUrl(store)).toBeNull();
  });
});
