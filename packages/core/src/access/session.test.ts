import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { addPerson, revokePerson } from './people.js';
import { endWebSession, openWebSession, SESSION_KEY, WEB_SESSION_TTL_MS, webSession } from './session.js';
import { signToken } from './signed-token.js';
import { tempDir } from '../testing/temp-dir.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

/** A store judging time by the same clock as the sessions (as shop serve's store and Clock port do). */
function fresh() {
  const clock = {
    t: 1_700_000_000_000,
    now() {
      return this.t;
    },
  };
  const store = openSqliteStore(join(tempDir('shop-session-'), 'shop.db'), () => clock.t);
  open.push(store);
  return { store, clock };
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('web sessions', () => {
  it('a login token opens a signed session naming the person, not holding the token; 12 hours', async () => {
    const { store, clock } = fresh();
    const { token } = await addPerson(store, 'ann', 'test');
    const s = (await openWebSession(store, clock, token))!;
    expect(s).toMatchObject({ name: 'ann', expiresAt: clock.t + WEB_SESSION_TTL_MS });
    expect(s.session).not.toContain(token);
    expect(await store.getSetting(SESSION_KEY)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await webSession(store, clock, s.session)).toMatchObject({ name: 'ann' });
    clock.t += WEB_SESSION_TTL_MS - 1;
    expect(await webSession(store, clock, s.session)).not.toBeNull();
    clock.t += 1;
    expect(await webSession(store, clock, s.session)).toBeNull();
  });

  it('no session for an unknown token; forged, re-signed or garbled sessions are refused', async () => {
    const { store, clock } = fresh();
    const { token } = await addPerson(store, 'ann', 'test');
    await addPerson(store, 'bob', 'test');
    expect(await openWebSession(store, clock, 'x'.repeat(43))).toBeNull();
    const s = (await openWebSession(store, clock, token))!.session;
    const [body, sig] = s.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    for (const bad of [
      `${b64({ ...payload, n: 'bob' })}.${sig}`,
      `${b64({ ...payload, e: (payload.e as number) + 1 })}.${sig}`,
      `${body}.${'A'.repeat(43)}`,
      body,
      '',
      token,
      `${s}x`,
    ]) {
      expect(await webSession(store, clock, bad)).toBeNull();
    }
  });

  it('a revoke ends every session of that person; re-added, the old sessions stay ended', async () => {
    const { store, clock } = fresh();
    const { token } = await addPerson(store, 'ann', 'test');
    const old = (await openWebSession(store, clock, token))!.session;
    await revokePerson(store, 'ann');
    expect(await webSession(store, clock, old)).toBeNull();
    expect(await openWebSession(store, clock, token)).toBeNull();
    const again = await addPerson(store, 'ann', 'test');
    expect(await webSession(store, clock, old)).toBeNull();
    const now = (await openWebSession(store, clock, again.token))!.session;
    expect(await webSession(store, clock, now)).toMatchObject({ name: 'ann' });
  });

  it('logout ends that session alone, for good; a session signed before sessions had ids is refused', async () => {
    const { store, clock } = fresh();
    const { token } = await addPerson(store, 'ann', 'test');
    const laptop = (await openWebSession(store, clock, token))!.session;
    const phone = (await openWebSession(store, clock, token))!.session;
    await endWebSession(store, clock, laptop);
    expect(await webSession(store, clock, laptop)).toBeNull();
    expect(await webSession(store, clock, phone)).toMatchObject({ name: 'ann' });
    // Ending a forged or expired one records nothing and fails nothing.
    await endWebSession(store, clock, 'forged.x');
    clock.t += WEB_SESSION_TTL_MS;
    await endWebSession(store, clock, phone);
    const [body] = phone.split('.');
    const { s: _id, ...old } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    clock.t -= WEB_SESSION_TTL_MS;
    expect(await webSession(store, clock, await signToken(store, SESSION_KEY, old))).toBeNull();
  });
});
