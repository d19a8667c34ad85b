import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs';
import { killLeftovers, lines, makeProject, runId, startWorker, stopWorker, until, type Project } from './harness.js';
import { normalise } from './parity-normalise.js';
import { addPerson, http, signIn, startServe } from './serve-harness.js';

/**
 * Every command on PostgreSQL, through the real binary: one scenario — runs with an agent and
 * pauses, answers of each kind, a stop, a run killed mid-agent and resumed, a worker taking an
 * answer from another process, replay, prune, and serve's /api/inbox — played on a SQLite
 * project and on a PostgreSQL one (shop init --database URL). Each step's --json must be the
 * same document on both (ids are equal by construction; times, seeds, pids, tokens, session ids
 * and the project's folder are normalised).
 */

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await killLeftovers();
  await cluster?.stop();
});

const GATE = `function workflow(prompt)
  local built = run("coder", "build " .. prompt)
  local r = pause("Ship " .. prompt .. "?")
  log("decided " .. tostring(r.continue))
  return { built = built.summary, shipped = r.continue }
end
`;
const ASK = `function workflow(prompt)
  local plan = run("architect", "plan " .. prompt)
  return { plan = plan.status, summary = plan.summary }
end
`;
const SLOW = `function workflow(prompt)
  local review = run("reviewer", "review " .. prompt)
  return { review = review.summary }
end
`;
const SCENARIO = {
  agents: {
    architect: [
      { status: 'NEEDS_HUMAN', reason: 'Which database?', awaiting: 'input' },
      { status: 'DONE', summary: 'planned' },
    ],
    // The first review hangs until its driver is killed; the resumed one finishes.
    reviewer: [
      { status: 'DONE', summary: 'never', sleep_ms: 60_000 },
      { status: 'DONE', summary: 'reviewed' },
    ],
  },
  default: { status: 'DONE', summary: 'built', cost: 0.0125 },
};

type Docs = Record<string, unknown>;

/** Plays the scenario on `p` and returns every --json document it printed, by step. */
async function play(p: Project): Promise<Docs> {
  const docs: Docs = {};
  const json = (step: string, args: string[], code = 0) => {
    const r = p.shop([...args, '--json']);
    expect(r.code, `${step}: ${r.stderr}`).toBe(code);
    docs[step] = JSON.parse(r.stdout);
  };
  p.write('workflows/gate.lua', GATE);
  p.write('workflows/ask.lua', ASK);
  p.write('workflows/slow.lua', SLOW);
  p.scenario(SCENARIO);

  json('run 1 (approved)', ['run', 'gate', 'a'], 3);
  json('run 2 (rejected)', ['run', 'gate', 'b'], 3);
  json('run 3 (answered)', ['run', 'ask', 'c'], 3);
  json('run 4 (stopped)', ['run', 'gate', 'd'], 3);
  json('list, all waiting', ['list']);
  json('inbox', ['inbox']);
  json('list --waiting', ['list', '--waiting']);
  json('claim 3.1', ['claim', '3.1']);
  json('inbox, 3.1 claimed', ['inbox']);

  // serve's inbox: the same document as shop inbox, from a signed-in person (access on this store).
  const s = await startServe(p);
  const ann = await signIn(s, addPerson(p, 'ann'));
  const inbox = await http(s, '/api/inbox', { cookie: ann.cookie });
  expect(inbox.status).toBe(200);
  docs['serve /api/inbox'] = JSON.parse(inbox.body);
  expect(docs['serve /api/inbox']).toEqual(docs['inbox, 3.1 claimed']);
  s.bg.child.kill('SIGTERM');
  await s.bg.exited;
  json('access list', ['access', 'list']);

  json('approve 1.2', ['approve', '1.2']);
  json('reject 2.2', ['reject', '2.2', 'not', 'now']);
  json('answer 3.1', ['answer', '3.1', 'postgres']);
  json('stop 4', ['stop', '4', '--reason', 'enough']);
  json('resume 4 (stopped: stays stuck)', ['resume', '4'], 4);

  // Run 5: its driver is killed mid-agent; shop resume takes it over and finishes it.
  const fg = p.spawnShop(['run', 'slow', 'e']);
  await until('the first review to start', () => p.invocations().some((i) => i.agent === 'reviewer'));
  const id = runId(fg.output());
  expect(id).toBe(5);
  // Killed once the agent's first words are recorded, so both plays kill it at the same point.
  await until('the review to say something', () => {
    const call = (
      JSON.parse(p.shop(['status', '5', '--json']).stdout) as {
        executions: { activity: string | null; num_turns: number | null }[];
      }
    ).executions[0];
    return call?.activity && call.num_turns !== null;
  });
  fg.child.kill('SIGKILL');
  await fg.exited;
  json('status 5 (interrupted)', ['status', '5']);
  json('resume 5', ['resume', '5']);

  // Run 6: a worker holds it; an approval from another process wakes it and it completes there.
  json('run 6 (worker)', ['run', 'gate', 'f'], 3);
  const w = await startWorker(p);
  await until('the worker to hold run 6', () =>
    w.output().includes('run 6 (gate): held here while it waits for a person'),
  );
  json('approve 6.2 (worker drives)', ['approve', '6.2']);
  await until('the worker to complete run 6', () => w.output().includes('run 6 (gate) completed: '));
  expect(await stopWorker(w)).toBe(0);

  for (const n of [1, 2, 3, 4, 5, 6]) {
    json(`status ${n}`, ['status', String(n)]);
    json(`log ${n}`, ['log', String(n)]);
  }
  json('list, all ended', ['list']);
  json('inbox, empty', ['inbox']);
  json('replay --all', ['replay', '--all']);
  json('prune --dry-run', ['prune', '--dry-run']);
  json('prune', ['prune']);
  json('list, pruned', ['list']);
  return docs;
}

describe('every command on PostgreSQL', () => {
  it('gives the same --json documents as on SQLite, step by step', async () => {
    const onSqlite = makeProject();
    const sqlite = normalise(await play(onSqlite), onSqlite.dir) as Docs;

    const onPg = makeProject();
    const url = await cluster.createDatabase('parity');
    const init = onPg.shop(['init', '--database', url]);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(lines(init.stdout)).toEqual(
      expect.arrayContaining([
        'database URL kept in .shop/database.url (readable by you alone)',
        `store ready at PostgreSQL 127.0.0.1:${cluster.port}/parity (from ${onPg.dir}/.shop/database.url)`,
      ]),
    );
    const pg = normalise(await play(onPg), onPg.dir) as Docs;

    expect(Object.keys(pg)).toEqual(Object.keys(sqlite));
    for (const step of Object.keys(sqlite)) expect.soft(pg[step], step).toEqual(sqlite[step]);
    // The scenario did what it says (so equal documents are not equally empty ones).
    expect(sqlite['list, all ended']).toMatchObject([
      { id: 6, status: 'completed' },
      { id: 5, status: 'completed' },
      { id: 4, status: 'stuck' },
      { id: 3, status: 'completed' },
      { id: 2 },
      { id: 1, status: 'completed' },
    ]);
    expect(sqlite['list, pruned']).toEqual([]);
  }, 240_000);
});
