import type Database from 'better-sqlite3';
import { askHandle } from '../../decisions/ask-handle.js';
import { ConflictError, RunNotFoundError } from '../../errors.js';
import { localTime } from '../../local-time.js';
import { hasEnded, type AskClaim, type Channel, type RunStatus, type Timer } from '../../types.js';
import { ClaimedError } from '../../errors.js';
import type { Claim, ClaimRef, ClaimStore, NewClaim } from '../claim-store.js';
import { toAnswer, type Row } from '../rows.js';
import { alreadyAnswered } from '../answered-line.js';
import type { EventInput } from '../store.js';

/** What the claims need of the SQLite store they are part of: its transactions, clock and trail. */
export interface ClaimsHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  fenced<T>(token: string, runId: number, fn: () => T): T;
  event(runId: number, e: EventInput): void;
}

const ASK = 'run_id = @runId AND call_key = @key AND ask = @ask';
const SQL = {
  run: 'SELECT 1 FROM runs WHERE id = @runId',
  call: 'SELECT e.status, e.ask, r.status AS run_status FROM executions e JOIN runs r ON r.id = e.run_id WHERE e.run_id = @runId AND e.call_key = @key',
  answer: `SELECT * FROM answers WHERE ${ASK}`,
  claim: `SELECT * FROM claims WHERE ${ASK}`,
  upsert: `INSERT INTO claims (run_id, call_key, ask, "by", channel, claimed_at, expires_at) VALUES (@runId, @key, @ask, @by, @channel, @since, @until)
    ON CONFLICT (run_id, call_key, ask) DO UPDATE SET "by" = excluded."by", channel = excluded.channel, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at`,
  remove: `DELETE FROM claims WHERE ${ASK}`,
  // Reminders and escalation put off by this claim come back now that it is gone.
  bringBack: `UPDATE timers SET due_at = @t, data = json_remove(data, '$.put_off_by')
    WHERE ${ASK} AND fired_at IS NULL AND kind IN ('remind','escalate') AND due_at > @t AND json_extract(data, '$.put_off_by') IS NOT NULL`,
  putOff: `UPDATE timers SET due_at = @until, data = json_set(COALESCE(data, '{}'), '$.put_off_by', @by) WHERE id = @id AND fired_at IS NULL`,
} as const;

const iso = (t: number) => new Date(t).toISOString();

/** The SQLite adapter's claims: every method one immediate transaction of the store. */
export class SqliteClaims implements ClaimStore {
  private readonly stmt: Record<keyof typeof SQL, Database.Statement>;

  constructor(private readonly host: ClaimsHost) {
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, host.db.prepare(sql)])) as Record<
      keyof typeof SQL,
      Database.Statement
    >;
  }

  async claimAsk(claim: NewClaim, opts: { ttlMs: number }): Promise<Claim & { refreshed: boolean }> {
    return this.host.tx(() => {
      this.mustBeOpen(claim);
      const t = this.host.now();
      const held = this.lasting(claim, t);
      if (held && held.by !== claim.by) throw claimedError(claim, held);
      // Claiming again refreshes one's own claim (it lasts anew), keeping since when it is held.
      const since = held ? held.since : t;
      const until = t + opts.ttlMs;
      this.stmt.upsert.run({ ...claim, since, until });
      const data: Record<string, unknown> = { ask: claim.ask, until: iso(until) };
      if (held) data.refreshed = true;
      this.host.event(claim.runId, { type: 'claimed', key: claim.key, actor: claim.by, channel: claim.channel, data });
      return { ...claim, since, until, refreshed: held !== null };
    });
  }

  async releaseClaim(ref: ClaimRef): Promise<Claim | null> {
    return this.host.tx(() => {
      const t = this.host.now();
      const held = this.lasting(ref, t);
      if (!held) return null;
      if (ref.by !== null && held.by !== ref.by) throw claimedError(ref, held);
      this.stmt.remove.run(ref);
      this.stmt.bringBack.run({ ...ref, t });
      this.host.event(ref.runId, {
        type: 'claim_released',
        key: ref.key,
        actor: ref.actor,
        channel: ref.channel,
        data: { ask: ref.ask, claimed_by: held.by, since: iso(held.since) },
      });
      return { runId: ref.runId, key: ref.key, ask: ref.ask, ...held };
    });
  }

  async putOffTimer(token: string, timer: Timer): Promise<AskClaim | null> {
    return this.host.fenced(token, timer.runId, () => {
      const held = this.lasting({ runId: timer.runId, key: timer.key, ask: timer.ask }, this.host.now());
      if (!held || !this.stmt.putOff.run({ id: timer.id, until: held.until, by: held.by }).changes) return null;
      this.host.event(timer.runId, {
        type: 'timer_put_off',
        key: timer.key,
        actor: 'system:timer',
        channel: 'engine',
        data: { ask: timer.ask, timer: timer.kind, claimed_by: held.by, until: iso(held.until) },
      });
      return held;
    });
  }

  /** The claim on an ask while it lasts (an aged-out one is as good as none). */
  private lasting(ask: { runId: number; key: string; ask: number }, t: number): AskClaim | null {
    const row = this.stmt.claim.get(ask) as Row | undefined;
    if (!row || Number(row.expires_at) <= t) return null;
    return {
      by: String(row.by),
      channel: row.channel as Channel,
      since: Number(row.claimed_at),
      until: Number(row.expires_at),
    };
  }

  /** Only an open ask is claimed: its call waits on it, nobody has answered it, the run goes on. */
  private mustBeOpen(claim: NewClaim) {
    if (!this.stmt.run.get(claim)) throw new RunNotFoundError(claim.runId);
    const answer = this.stmt.answer.get(claim) as Row | undefined;
    if (answer) throw new ConflictError(alreadyAnswered(toAnswer(answer)));
    const call = this.stmt.call.get(claim) as Row | undefined;
    const open =
      call &&
      !hasEnded({ status: call.run_status as RunStatus }) &&
      call.status === 'waiting_human' &&
      Number(call.ask) === claim.ask;
    if (!open)
      throw new ConflictError(
        `${askHandle(claim.runId, claim.key, claim.ask)} is not open any more (nothing to claim)`,
        [{ verb: 'status', handle: String(claim.runId) }],
      );
  }
}

/** "33.4 is claimed by ann (web) since 2026-11-24 14:02:05 +01:00 (until 15:02:05 …, unless released)". */
function claimedError(ask: { runId: number; key: string; ask: number }, held: AskClaim): ClaimedError {
  const handle = askHandle(ask.runId, ask.key, ask.ask);
  return new ClaimedError(
    handle,
    held,
    `${handle} is claimed by ${held.by} (${held.channel}) since ${localTime(held.since)} (until ${localTime(held.until)}, unless released)`,
  );
}
