import { askHandle } from '../../decisions/ask-handle.js';
import { ClaimedError, ConflictError, RunNotFoundError } from '../../errors.js';
import { localTime } from '../../local-time.js';
import { hasEnded, type AskClaim, type Channel, type RunStatus, type Timer } from '../../types.js';
import type { Claim, ClaimRef, ClaimStore, NewClaim } from '../claim-store.js';
import { toAnswer, type Row } from '../rows.js';
import { alreadyAnswered } from '../answered-line.js';
import type { EventInput } from '../store.js';
import type { PgDb, Sql } from './pg-db.js';

/** What the claims need of the PostgreSQL store they are part of: its pool, fencing and trail. */
export interface PgClaimsHost {
  db: PgDb;
  /** A driver's write in one transaction, refused (LostOwnershipError) unless `token` owns the run. */
  fenced<T>(token: string, runId: number, fn: (q: Sql) => Promise<T>): Promise<T>;
  /** Appends to the run's audit trail inside `q`'s transaction. */
  event(q: Sql, runId: number, e: EventInput): Promise<void>;
}

const ASK = 'run_id = $1 AND call_key = $2 AND ask = $3';
const askParams = (a: { runId: number; key: string; ask: number }) => [a.runId, a.key, a.ask];
const SQL = {
  // The run's row is locked first, as every fenced write and every event does: claims on a
  // run, answers and the driver's writes take their turns instead of deadlocking.
  lockRun: 'SELECT status FROM runs WHERE id = $1 FOR UPDATE',
  call: 'SELECT status, ask FROM executions WHERE run_id = $1 AND call_key = $2',
  answer: `SELECT * FROM answers WHERE ${ASK}`,
  claim: `SELECT * FROM claims WHERE ${ASK}`,
  upsert: `INSERT INTO claims (run_id, call_key, ask, "by", channel, claimed_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (run_id, call_key, ask) DO UPDATE SET "by" = excluded."by", channel = excluded.channel, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at`,
  remove: `DELETE FROM claims WHERE ${ASK}`,
  // Reminders and escalation put off by a claim (their data names it in put_off_by).
  putOffTimers: `SELECT id, data FROM timers WHERE ${ASK} AND fired_at IS NULL AND kind IN ('remind','escalate') AND due_at > $4
    AND data IS NOT NULL AND (data::jsonb ->> 'put_off_by') IS NOT NULL ORDER BY id`,
  timer: 'SELECT data FROM timers WHERE id = $1 AND fired_at IS NULL',
  setTimer: 'UPDATE timers SET due_at = $2, data = $3 WHERE id = $1',
} as const;

const iso = (t: number) => new Date(t).toISOString();

/**
 * The PostgreSQL adapter's claims: every method one transaction, under the run row's lock.
 * A timer's JSON is edited here rather than by jsonb, which would reorder its keys: the
 * text stays as SQLite's json_set/json_remove leave it.
 */
export class PgClaims implements ClaimStore {
  constructor(private readonly host: PgClaimsHost) {}

  async claimAsk(claim: NewClaim, opts: { ttlMs: number }): Promise<Claim & { refreshed: boolean }> {
    return this.host.db.tx(async (q) => {
      await this.mustBeOpen(q, claim);
      const t = this.host.db.now();
      const held = await this.lasting(q, claim, t);
      if (held && held.by !== claim.by) throw claimedError(claim, held);
      // Claiming again refreshes one's own claim (it lasts anew), keeping since when it is held.
      const since = held ? held.since : t;
      // Whole ms: PostgreSQL refuses a fraction for a bigint (a claim_timeout of 0.5 s is 500 ms).
      const until = t + Math.round(opts.ttlMs);
      await q.query(SQL.upsert, [...askParams(claim), claim.by, claim.channel, since, until]);
      const data: Record<string, unknown> = { ask: claim.ask, until: iso(until) };
      if (held) data.refreshed = true;
      await this.host.event(q, claim.runId, {
        type: 'claimed',
        key: claim.key,
        actor: claim.by,
        channel: claim.channel,
        data,
      });
      return { ...claim, since, until, refreshed: held !== null };
    });
  }

  async releaseClaim(ref: ClaimRef): Promise<Claim | null> {
    return this.host.db.tx(async (q) => {
      await q.query(SQL.lockRun, [ref.runId]);
      const t = this.host.db.now();
      const held = await this.lasting(q, ref, t);
      if (!held) return null;
      if (ref.by !== null && held.by !== ref.by) throw claimedError(ref, held);
      await q.query(SQL.remove, askParams(ref));
      await this.bringBack(q, ref, t);
      await this.host.event(q, ref.runId, {
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
    return this.host.fenced(token, timer.runId, async (q) => {
      const held = await this.lasting(q, { runId: timer.runId, key: timer.key, ask: timer.ask }, this.host.db.now());
      if (!held) return null;
      const [row] = await q.query<Row>(SQL.timer, [timer.id]);
      if (!row) return null;
      const data = { ...parseObject(row.data), put_off_by: held.by };
      await q.query(SQL.setTimer, [timer.id, held.until, JSON.stringify(data)]);
      await this.host.event(q, timer.runId, {
        type: 'timer_put_off',
        key: timer.key,
        actor: 'system:timer',
        channel: 'engine',
        data: { ask: timer.ask, timer: timer.kind, claimed_by: held.by, until: iso(held.until) },
      });
      return held;
    });
  }

  /** Reminders and escalation put off by a claim come back now that it is gone. */
  private async bringBack(q: Sql, ref: { runId: number; key: string; ask: number }, t: number) {
    for (const row of await q.query<Row>(SQL.putOffTimers, [...askParams(ref), t])) {
      const data = parseObject(row.data);
      delete data.put_off_by;
      await q.query(SQL.setTimer, [row.id, t, JSON.stringify(data)]);
    }
  }

  /** The claim on an ask while it lasts (an aged-out one is as good as none). */
  private async lasting(q: Sql, ask: { runId: number; key: string; ask: number }, t: number): Promise<AskClaim | null> {
    const [row] = await q.query<Row>(SQL.claim, askParams(ask));
    if (!row || Number(row.expires_at) <= t) return null;
    return {
      by: String(row.by),
      channel: row.channel as Channel,
      since: Number(row.claimed_at),
      until: Number(row.expires_at),
    };
  }

  /** Only an open ask is claimed: its call waits on it, nobody has answered it, the run goes on. */
  private async mustBeOpen(q: Sql, claim: NewClaim) {
    const [run] = await q.query<Row>(SQL.lockRun, [claim.runId]);
    if (!run) throw new RunNotFoundError(claim.runId);
    const [answer] = await q.query<Row>(SQL.answer, askParams(claim));
    if (answer) throw new ConflictError(alreadyAnswered(toAnswer(answer)));
    const [call] = await q.query<Row>(SQL.call, [claim.runId, claim.key]);
    const open =
      call &&
      !hasEnded({ status: run.status as RunStatus }) &&
      call.status === 'waiting_human' &&
      Number(call.ask) === claim.ask;
    if (!open)
      throw new ConflictError(
        `${askHandle(claim.runId, claim.key, claim.ask)} is not open any more (nothing to claim)`,
        [{ verb: 'status', handle: String(claim.runId) }],
      );
  }
}

/** A timer's data as an object (SQLite's json_set on NULL starts from {}). */
function parseObject(text: unknown): Record<string, unknown> {
  if (text == null) return {};
  const value = JSON.parse(String(text)) as unknown;
  return value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
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
