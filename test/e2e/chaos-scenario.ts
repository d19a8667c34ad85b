import { spawnSync } from 'node:child_process';
import type { Project, Result } from './harness.js';
import type { Span } from './spans.js';

/**
 * The chaos test's workflow: a person starts it (a pause), agents plan, code and test (two at
 * once), a person approves shipping (a pause), an agent asks the person a question (its
 * NEEDS_HUMAN, answered with `shop answer`, which resumes its session with the answer), and a
 * last agent ships. Three answers per run, six agent steps, one of them resumed by an answer.
 */
export const WORKFLOW = `function workflow(prompt)
  local go = pause("Start " .. prompt .. "?")
  local plan = run("planner")
  local code, tests = parallel(function() return run("coder") end, function() return run("tester") end)
  local ship = pause("Ship it?")
  local asked = run("asker")
  local shipped = run("shipper")
  return table.concat({ tostring(go.continue), plan.summary, code.summary, tests.summary, tostring(ship.continue), asked.summary, shipped.summary }, "|")
end
`;
export const EXPECTED = 'true|plan|code|tests|true|answered|shipped';
/** The calls a person answers: the two pauses and the asker's question. */
export const ANSWERED_KEYS = ['1', '4', '5'];
/** Each call's agent: the asker's is the one finished twice (its question, then with the answer). */
export const AGENT_CALLS: Record<string, { agent: string; finishes: number }> = {
  '2': { agent: 'planner', finishes: 1 },
  '3/1/1': { agent: 'coder', finishes: 1 },
  '3/2/1': { agent: 'tester', finishes: 1 },
  '5': { agent: 'asker', finishes: 2 },
  '6': { agent: 'shipper', finishes: 1 },
};

/** A person's answer to the asker names the run, so the test can see it reached that agent. */
export const answerFor = (run: number) => `ANSWER-${run}: use the blue one`;

/** The project: workflow, agents, and the stand-in's scenario (agents work ~0.6–1 s, paced, so kills land mid-agent). */
export function setUpProject(p: Project): void {
  p.write('workflows/chaos.lua', WORKFLOW);
  for (const name of ['planner', 'coder', 'tester', 'asker', 'shipper']) {
    p.write(`agents/${name}.md`, `---\ndescription: ${name} of the chaos test\n---\nYou are the ${name}.\n`);
  }
  const work = (summary: string) => [{ status: 'DONE', summary, pace_ms: 200, sleep_ms: 200 }];
  p.scenario({
    agents: {
      planner: work('plan'), coder: work('code'), tester: work('tests'), shipper: work('shipped'),
      // Asks until its prompt carries the person's answer (a restart in between asks again).
      asker: [{ status: 'DONE', summary: 'answered', when_prompt: 'ANSWER-\\d+', pace_ms: 200 }, { status: 'NEEDS_HUMAN', reason: 'which colour?', pace_ms: 150 }],
    },
  });
  // One repository for all machines: the project's identity is its root commit.
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: p.dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  p.write('.gitignore', '.shop/\nmachines/\n*.jsonl\nscenario.json\n');
  git('init', '-q');
  git('add', 'workflows', 'agents', '.gitignore');
  git('-c', 'user.name=Chaos', '-c', 'user.email=chaos@shop.invalid', 'commit', '-q', '-m', 'chaos project');
}

/** Pairs of agent processes alive at once on one call (any session, any machine). */
export function callOverlaps(spans: Span[]): string[] {
  const byCall = new Map<string, Span[]>();
  for (const s of spans) if (s.mode === 'print') byCall.set(`${s.run}/${s.call}`, [...(byCall.get(`${s.run}/${s.call}`) ?? []), s]);
  const found: string[] = [];
  for (const [call, list] of byCall) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1], list[i]];
      if (a.end === null || a.end > b.start) found.push(`run/call ${call}: ${a.host}:${a.pid} (${a.start}–${a.end ?? 'never ended'}) and ${b.host}:${b.pid} (from ${b.start})`);
    }
  }
  return found;
}

/** Calls whose agent finished its work (exit 0) more often than the workflow asks of it: a completed agent run again. */
export function extraFinishes(spans: Span[], runs: number[]): string[] {
  const found: string[] = [];
  for (const run of runs) {
    for (const [call, { agent, finishes }] of Object.entries(AGENT_CALLS)) {
      const done = spans.filter((s) => s.run === String(run) && s.call === call && s.mode === 'print' && s.code === 0);
      if (done.length !== finishes) found.push(`run ${run} call ${call} (${agent}): finished ${done.length} times, expected ${finishes} (${done.map((s) => `${s.host}:${s.pid}`).join(', ')})`);
    }
  }
  return found;
}

/** A command's outcome in one line, for failure messages. */
export function said(r: Result): string {
  return `exit ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ')}`;
}
