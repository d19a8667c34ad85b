import { agentNameProblem } from '../../agents/agent-name.js';
import { capText } from '../../text.js';
import { canonical, hashText } from '../canonical-hash.js';
import { describeIssues } from '../issues.js';
import type { CallDefinition } from './definition.js';
import { RunOptionsSchema, type RunRequest } from './run-request.js';

/** run(agent [, prompt | opts]): an agent step; it may wait for a person (NEEDS_HUMAN). */
export const runCall: CallDefinition<RunRequest> = {
  name: 'run',
  kind: 'run',
  flow: 'call',
  usage: 'run(agent [, prompt | opts])',
  max: 2,
  hint: '; give the prompt in opts to give both: run("coder", {prompt = "…", timeout = 60})',
  working: true,
  parse([agent, arg]) {
    if (typeof agent !== 'string' || !agent) return 'run(agent [, prompt | opts]): agent must be a non-empty string';
    if (arg == null) return { type: 'run', agent, prompt: null, opts: {} };
    if (typeof arg === 'string') return { type: 'run', agent, prompt: arg, opts: {} };
    const parsed = RunOptionsSchema.safeParse(arg);
    if (!parsed.success)
      return `run("${agent}", opts): ${describeIssues(parsed.error)} (known: ${Object.keys(RunOptionsSchema.shape).join(', ')})`;
    return { type: 'run', agent, prompt: parsed.data.prompt ?? null, opts: parsed.data };
  },
  fatal: (req) => {
    const bad = agentNameProblem(req.agent);
    return bad ? `run(): ${bad}` : null;
  },
  describe: (req) => `run("${req.agent}")`,
  // The canonical form of { opts, prompt }, built directly: this runs for every replayed call.
  fingerprint: (req) =>
    `run("${req.agent}") #${hashText(`{"opts":${canonical(req.opts)},"prompt":${JSON.stringify(req.prompt)}}`)}`,
  quoted: (req) => `run("${req.agent}")`,
  difference(rec, req, runPrompt) {
    if (rec.kind !== 'run' || rec.agent !== req.agent) return null;
    const was = rec.fingerprint.split(' #')[0];
    const prompt = req.prompt || runPrompt || null;
    const quote = (s: string | null) => JSON.stringify(capText(s ?? '', 80));
    if (rec.prompt !== prompt && prompt !== null)
      return [`${was} with prompt ${quote(rec.prompt)}`, `${was} with prompt ${quote(prompt)}`];
    return [
      `${was} with options ${capText(JSON.stringify(rec.request ?? {}), 120)}`,
      `${was} with options ${capText(JSON.stringify(req.opts), 120)}`,
    ];
  },
  prepare: (world, req) => world.firstUse(req.agent),
  start: (world, key, req, rec, signal) => world.agents.call(key, req, rec, signal),
  poll: (world, exec, signal) => world.answered(exec, signal),
};
