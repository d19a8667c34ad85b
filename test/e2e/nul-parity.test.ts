import { afterAll, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { killLeftovers, makeProject, type Project } from './harness.js';
import { normalise } from './parity-normalise.js';

/**
 * A NUL in text handed to the store — a workflow's pause() message and decision prompt, its
 * log lines and stuck() reason, an agent's summary, a person's answer — is kept alike on
 * SQLite and PostgreSQL (PostgreSQL's text cannot hold NUL: both get U+FFFD), and a run
 * resumed in a new process replays past such a pause — its message made of an agent's summary
 * holding a NUL, which Lua is handed live as a replay hands it. Failed before: SQLite kept the NUL,
 * PostgreSQL turned some of it into U+FFFD and kept the rest.
 */

const cluster = usePgCluster();
afterAll(killLeftovers);

const NUL_WORKFLOW = `function workflow(prompt)
  local built = run("coder", "build " .. prompt)
  log("built: " .. built.summary)
  local r = pause{ message = "Ship\\0" .. built.summary .. "?", decisions = { { id = "note", type = "text", prompt = "Why\\0not?" } } }
  stuck("held\\0back: " .. r.answers.note)
end
`;

type Docs = Record<string, unknown>;

function play(p: Project): Docs {
  const docs: Docs = {};
  const json = (step: string, args: string[], code: number) => {
    const r = p.shop([...args, '--json']);
    expect(r.code, `${step}: ${r.stderr}`).toBe(code);
    docs[step] = JSON.parse(r.stdout);
  };
  p.write('workflows/nul.lua', NUL_WORKFLOW);
  p.scenario({ agents: {}, default: { status: 'DONE', summary: 'built\u0000fast' } });
  p.write('answers.json', JSON.stringify({ note: 'not\u0000yet' }));
  json('run', ['run', 'nul', 'x'], 3);
  json('inbox', ['inbox'], 0);
  // Answered from another process: the run is replayed from the store up to the pause.
  json('signal', ['signal', '1.2', '--answers-file', 'answers.json'], 4);
  json('status', ['status', '1'], 0);
  json('log', ['log', '1'], 0);
  return docs;
}

describe('a NUL in text the store keeps', () => {
  it('becomes U+FFFD on SQLite and PostgreSQL alike: the same --json documents, and the run replays past it', async () => {
    const onSqlite = makeProject();
    const sqlite = normalise(play(onSqlite), onSqlite.dir) as Docs;
    const onPg = makeProject();
    expect(onPg.shop(['init', '--database', await cluster.createDatabase('nul')]).code).toBe(0);
    const pg = normalise(play(onPg), onPg.dir) as Docs;
    for (const step of Object.keys(sqlite)) expect.soft(pg[step], step).toEqual(sqlite[step]);
    // What both show: no NUL anywhere, U+FFFD where each was.
    const status = sqlite.status as {
      status: string;
      reason: string;
      executions: { result: { summary?: string } | null }[];
    };
    expect(status.status).toBe('stuck');
    expect(status.reason).toBe('held\uFFFDback: not\uFFFDyet');
    expect(status.executions[0].result?.summary).toBe('built\uFFFDfast');
    expect((sqlite.inbox as { question: string }[])[0].question).toBe('Ship\uFFFDbuilt\uFFFDfast?');
    expect(JSON.stringify(sqlite.log)).toContain('built: built\uFFFDfast');
    for (const docs of [sqlite, pg]) expect(JSON.stringify(docs)).not.toContain('\\u0000');
  }, 120_000);
});
