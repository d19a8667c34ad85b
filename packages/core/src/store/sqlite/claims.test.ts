import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from '../store.js';
import { tempDir } from '../../testing/temp-dir.js';

const open: Store[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const T = 'driver-token';
const HOUR = 3_600_000;

/** A store on a clock the test moves, with run 1 whose call 1 waits on its first ask (a reminder due in 10 minutes). */
async function waitingAsk() {
  const clock = { t: 1_000_000 };
  const file = join(tempDir('shop-claims-'), 'shop.db');
  const store = openSqliteStore(file, () => clock.t);
  open.push(store);
  const run = await store.createRun({
    spec: 'bugfix',
    workflowPath: '/p/b.lua',
    workflowHash: null,
    prompt: 'x',
    workspace: '/p',
    branch: null,
    seed: 1,
    owner: { token: T, host: 'h', pid: 1, pidStart: '1' },
    leaseMs: 1e12,
    actor: 'ann',
  });
  await store.startExecution(T, {
    runId: run.id,
    key: '1',
    kind: 'run',
    agent: 'coder',
    fingerprint: 'f',
    sessionId: 's-1',
    cwd: '/p',
    prompt: 'go',
    request: {},
    signalPath: null,
  });
  await store.markWaiting(
    T,
    run.id,
    '1',
    {
      waitingFor: 'Which database?',
      awaiting: 'input',
      claimTimeout: 1800,
      timers: [{ kind: 'remind', dueAt: clock.t + 600_000, data: { targets: ['desktop'], after_seconds: 600 } }],
    },
    'waiting_human',
  );
  return { store, clock, file, id: run.id };
}

const ask = (runId: number, by = 'ann') => ({ runId, key: '1', ask: 1, by, channel: 'cli' as const });

describe('migration from schema 6', () => {
  it('adds claim_timeout to the calls and the claims table; a waiting ask can be claimed after it', async () => {
    const { store, file, id } = await waitingAsk();
    store.close();
    open.splice(open.indexOf(store), 1);
    const db = new Database(file);
    db.exec(
      'DROP INDEX runs_held; ALTER TABLE runs DROP COLUMN rules; ALTER TABLE runs DROP COLUMN held; ALTER TABLE executions DROP COLUMN ask_decisions; ALTER TABLE executions DROP COLUMN claim_timeout; DROP TABLE claims',
    );
    db.pragma('user_version = 6');
    db.close();
    const migrated = openSqliteStore(file);
    open.push(migrated);
    expect(await migrated.getExecution(id, '1')).toMatchObject({ claimTimeout: null, claim: null });
    expect(await migrated.claimAsk(ask(id), { ttlMs: HOUR })).toMatchObject({ by: 'ann' });
    expect((await migrated.getExecution(id, '1'))!.claim).toMatchObject({ by: 'ann' });
  });
});
