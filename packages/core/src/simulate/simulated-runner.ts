import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentInvocation, AgentOutcome, AgentRunner } from '../agents/agent-runner.js';
import type { Fixture } from './fixture.js';

/**
 * The fixture's agents, in-process (no child process per step): the n-th invocation of an
 * agent plays its n-th step — writes its files, takes its time, hands over its report. An
 * agent asked once more than the fixture scripts fails the call, naming it.
 */
export class SimulatedRunner implements AgentRunner {
  private readonly used = new Map<string, number>();

  constructor(private readonly agents: Fixture['agents']) {}

  async invoke(inv: AgentInvocation): Promise<AgentOutcome> {
    const name = inv.agent.name;
    const n = this.used.get(name) ?? 0;
    this.used.set(name, n + 1);
    const steps = this.agents[name] ?? [];
    const step = steps[n];
    const metrics = { costUsd: step?.cost_usd ?? 0, numTurns: 1, durationMs: step?.delay_ms ?? 0 };
    if (!step) {
      const error = `the fixture has ${steps.length} step(s) for ${name}; call ${inv.env.SHOP_CALL} is its invocation ${n + 1}`;
      return { exitCode: 1, error, output: '', metrics };
    }
    if (step.delay_ms) await sleep(step.delay_ms, inv.signal);
    for (const [path, content] of Object.entries(step.files ?? {})) {
      const file = join(inv.cwd, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
    const report: Record<string, unknown> = { ...step.fields, status: step.status };
    for (const k of ['summary', 'reason', 'awaiting'] as const) if (step[k] !== undefined) report[k] = step[k];
    return { exitCode: 0, error: null, output: step.summary ?? '', metrics, report };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
