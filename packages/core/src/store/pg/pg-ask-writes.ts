import { shopHostname } from '../../host-name.js';
import { ConflictError } from '../../errors.js';
import { hasEnded, type Answer, type Run, type RunOwner, type Timer } from '../../types.js';
import { toAnswer, toRun } from '../rows.js';
import { alreadyAnswered } from '../answered-line.js';
import type { ContinueHold, TimerEffect } from '../store.js';
import type { PgDb, Sql } from './pg-db.js';
import { answer, callAndAnswer, checkHold, end, event, notFound, whole } from './pg-steps.js';
import { W } from './pg-write-sql.js';
import { clearReport } from './pg-sessions.js';

type Fenced = <T>(token: string, runId: number, fn: (q: Sql, run: Run) => Promise<T>) => Promise<T>;

/**
 * The PostgreSQL store's writes around asks: a person's hold on a call's session, answers
 * (first wins: the run row's lock makes racing answers take turns, and the second finds the
 * first) and timers. Each one transaction, the run row locked first like every write.
 */
export class AskWrites {
  /** This host, to name a session's holder in a refusal ("process 812", or "… on other-host"). */
  private readonly host = shopHostname();

  constructor(
    private readonly db: PgDb,
    private readonly fenced: Fenced,
  ) {}

  private now(): number {
    return this.db.now();
  }

  async holdSession(runId: number, key: string, hold: ContinueHold, expect: { ask: number; staleHold: string | null }) {
    await this.db.tx(async (q) => {
      const [runRow] = await q.query(W.lockRun, [runId]);
      const { exec: row, first } = await callAndAnswer(q, runId, key, expect.ask);
      if (first) throw new ConflictError(alreadyAnswered(toAnswer(first)));
      if (
        !row ||
        row.status !== 'waiting_human' ||
        Number(row.ask) !== expect.ask ||
        !runRow ||
        hasEnded(toRun(runRow))
      ) {
        throw new ConflictError(`run ${runId} call ${key} is no longer waiting for a person`, [
          { verb: 'status', handle: String(runId) },
        ]);
      }
      const t = this.now();
      await checkHold(q, row, expect.staleHold, 'open it', t, this.host);
      await q.query(W.takeContinueHold, [runId, key, hold.token, hold.by, hold.host, hold.pid, hold.pidStart, t]);
      // A report made before a person opened the session does not count (pg-sessions.ts).
      await clearReport(q, runId, key);
      await event(q, runId, t, {
        type: 'session_opened',
        key,
        actor: hold.by,
        channel: 'continue',
        data: { ask: expect.ask, pid: hold.pid },
      });
    });
  }

  async releaseSession(runId: number, key: string, token: string) {
    await this.db.tx(async (q) => {
      if (!(await q.query(W.lockRun, [runId])).length) return;
      const t = this.now();
      if ((await q.query(W.releaseHold, [runId, key, token, t])).length)
        await event(q, runId, t, { type: 'session_closed', key, actor: 'shop', channel: 'continue' });
    });
  }

  async recordAnswer(
    a: Omit<Answer, 'answeredAt'>,
    staleHold: string | null = null,
  ): Promise<Answer & { owner: RunOwner | null }> {
    return this.db.tx(async (q) => {
      // The run row first (as every write takes it): racing answers queue here, and the second finds the first.
      const [runRow] = await q.query(W.lockRun, [a.runId]);
      if (!runRow) throw notFound(a.runId);
      const t = this.now();
      const found = await callAndAnswer(q, a.runId, a.key, a.ask);
      await checkHold(q, found.exec, staleHold, 'answer', t, this.host);
      const { answeredAt } = await answer(q, toRun(runRow), a, found, t, 'answer');
      return { ...a, answeredAt, owner: toRun(runRow).owner };
    });
  }

  async fireTimer(token: string, timer: Timer, effect: TimerEffect) {
    return this.fenced(token, timer.runId, async (q, run) => {
      const t = this.now();
      if (!(await q.query(W.timerFired, [timer.id, t])).length) return false;
      const [call] = await q.query(W.timerCall, [timer.runId, timer.key, timer.ask]);
      // Answered (or ended) since it was set: nothing to do — an answer recorded but not yet
      // taken in counts, or a timeout would end a run a person has just answered.
      if (hasEnded(run) || call?.status !== 'waiting_human' || Number(call.ask) !== timer.ask || call.answered)
        return false;
      await event(q, timer.runId, t, effect.event);
      if (effect.answer) {
        await answer(
          q,
          run,
          effect.answer,
          await callAndAnswer(q, timer.runId, effect.answer.key, effect.answer.ask),
          t,
        );
      }
      if (effect.next) {
        await q.query(W.insertTimers, [
          timer.runId,
          timer.key,
          timer.ask,
          [effect.next.kind],
          [whole(effect.next.dueAt)],
          [JSON.stringify(effect.next.data)],
        ]);
      }
      if (effect.end) await end(q, timer.runId, effect.end, t);
      if (effect.next || effect.end) await this.db.notify(q, 'timer', timer.runId);
      return true;
    });
  }
}
