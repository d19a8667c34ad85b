import { spawnSync } from 'node:child_process';
import type { Project, Result } from './harness.js';
import { together, type Span } from './spans.js';

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
/** Each agent call's agent. */
export const AGENT_CALLS: Record<string, { agent: string }> = {
  '2': { agent: 'planner' },
  '3/1/1': { agent: 'coder' },
  '3/2/1': { agent: 'tester' },
  '5': { agent: 'asker' },
  '6': { agent: 'shipper' },
};

/** A person's answer to the asker names the run, so the test can see it reached that agent. */
export const answerFor = (run: number) => `ANSWER-${run}: use the blue one`;

/** The project: workflow, agents, and the stand-in's scenario (agents work ~0.6 s + `workMs`, paced, so kills land mid-agent). */
export function setUpProject(p: Project, workMs = 200): void {
  p.write('workflows/chaos.lua', WORKFLOW);
  for (const name of ['planner', 'coder', 'tester', 'asker', 'shipper']) {
    p.write(`agents/${name}.md`, `---\ndescription: ${name} of the chaos test\n---\nYou are the ${name}.\n`);
  }
  // Agents report with `shop report` (the store, not a file on one machine's disk).
  const work = (summary: string) => [
    { status: 'DONE', summary, via: 'report' as const, pace_ms: 200, sleep_ms: workMs },
  ];
  p.scenario({
    agents: {
      planner: work('plan'),
      coder: work('code'),
      tester: work('tests'),
      shipper: work('shipped'),
      // Asks until its prompt carries the person's answer (a restart in between asks again).
      asker: [
        { status: 'DONE', summary: 'answered', when_prompt: 'ANSWER-\\d+', via: 'report', pace_ms: 200 },
        { status: 'NEEDS_HUMAN', reason: 'which colour?', via: 'report', pace_ms: 150 },
      ],
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
  for (const s of spans)
    if (s.mode === 'print') byCall.set(`${s.run}/${s.call}`, [...(byCall.get(`${s.run}/${s.call}`) ?? []), s]);
  const found: string[] = [];
  for (const [call, list] of byCall) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1], list[i]];
      // On one session the kernel's word on a process whose end was never logged decides (spans.ts);
      // on two, a presence is not told across them: a missing end counts as alive.
      if (a.session === b.session ? together(a, b) : a.end === null || a.end > b.start)
        found.push(
          `run/call ${call}: ${a.host}:${a.pid} (${a.start}–${a.end ?? 'never ended'}) and ${b.host}:${b.pid} (from ${b.start})`,
        );
    }
  }
  return found;
}

/**
 * Calls whose agent did its work more than once: each call's agent reports its final status
 * (anything but NEEDS_HUMAN) exactly once, and no agent process starts on the call after that
 * report (a finished agent run again: its report lost, or not believed).
 */
export function finishedRerun(
  spans: Span[],
  runs: number[],
  calls: Record<string, { agent: string }> = AGENT_CALLS,
): string[] {
  const found: string[] = [];
  for (const run of runs) {
    for (const [call, { agent }] of Object.entries(calls)) {
      const list = spans.filter((s) => s.run === String(run) && s.call === call && s.mode === 'print');
      const finals = list.flatMap((s) =>
        s.reports.filter((r) => r.status !== 'NEEDS_HUMAN').map((r) => ({ s, at: r.at })),
      );
      // A process killed while reporting (a machine crash) may have reported: its result counts
      // when no process surely reported (the call completed on it), else it never got through.
      const maybe = list
        .filter((s) => s.code !== 0 && s.reports.length < s.reporting.length)
        .flatMap((s) =>
          s.reporting
            .slice(s.reports.length)
            .filter((r) => r.status !== 'NEEDS_HUMAN')
            .map((r) => ({ s, at: r.at })),
        );
      const name = `run ${run} call ${call} (${agent})`;
      const got = finals.length ? finals : maybe.slice(-1);
      if (finals.length > 1 || !got.length)
        found.push(
          `${name}: reported its result ${finals.length} times (${finals.map((f) => `${f.s.host}:${f.s.pid}`).join(', ')})`,
        );
      if (!got.length) continue;
      const at = Math.min(...got.map((f) => f.at));
      for (const later of list.filter((s) => s.start > at))
        found.push(`${name}: ${later.host}:${later.pid} started after it had reported its result`);
    }
  }
  return found;
}

/** A command's outcome in one line, for failure messages. */
export function said(r: Result): string {
  return `exit ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ')}`;
}
