import {
  UsageError,
  checkWorkflow,
  compareExpect,
  parseFixture,
  projectModules,
  resolveWorkflow,
  simulate,
} from '@shop/core';
import type { Fixture, Simulation, TestJson, TestRunsJson } from '@shop/core';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop test <workflow> [--fixture F.json] [--runs N] [--seed S] [--json]';

/**
 * shop test: the workflow on the fixture's simulated agents and people (no LLM, no person,
 * a temp store), its path printed and checked against `expect`. Exit 0 pass, 1 fail, 2 bad
 * fixture. --runs N: N runs on seeds S…S+N-1, and how their outcomes are distributed.
 */
export default async function test(args: CommandArgs<'test'>, ctx: Context): Promise<number> {
  const [name] = args.positionals;
  if (!name) throw new UsageError(`missing workflow name; usage: ${USAGE}`);
  const wf = resolveWorkflow(ctx.project, name);
  const source = readFileSync(wf.path, 'utf8');
  const modules = projectModules(ctx.project.root);
  checkWorkflow(source, basename(wf.path), modules);
  const fixturePath = args.values.fixture ?? join(dirname(wf.path), `${wf.spec}.test.json`);
  const fixture = readFixture(ctx, fixturePath, args.values.fixture === undefined);
  const seed = count(args.values.seed, 'seed', fixture.seed, 0);
  const runs = count(args.values.runs, 'runs', 1, 1);
  const shown = relative(ctx.cwd, fixturePath) || fixturePath;

  if (!args.values.runs) {
    const sim = await simulate(source, wf.spec, fixture, seed, modules);
    const problems = compareExpect(fixture.expect, sim);
    if (args.values.json)
      printJson(ctx.out, {
        workflow: wf.spec,
        fixture: shown,
        seed,
        ...simJson(sim),
        passed: problems.length === 0,
        problems,
      } satisfies TestJson);
    else printOne(ctx.out, wf.spec, shown, sim, problems);
    return problems.length ? 1 : 0;
  }

  const outcomes = new Map<
    string,
    Pick<Simulation, 'status' | 'result' | 'reason'> & { count: number; seeds: number[] }
  >();
  const failed: number[] = [];
  for (let s = seed; s < seed + runs; s++) {
    const sim = await simulate(source, wf.spec, fixture, s, modules);
    if (compareExpect(fixture.expect, sim).length) failed.push(s);
    const id = JSON.stringify([sim.status, sim.result, sim.reason]);
    const o = outcomes.get(id) ?? { status: sim.status, result: sim.result, reason: sim.reason, count: 0, seeds: [] };
    o.count += 1;
    o.seeds.push(s);
    outcomes.set(id, o);
  }
  const sorted = [...outcomes.values()].sort((a, b) => b.count - a.count);
  if (args.values.json) {
    printJson(ctx.out, {
      workflow: wf.spec,
      fixture: shown,
      runs,
      seeds: [seed, seed + runs - 1],
      outcomes: sorted,
      passed: runs - failed.length,
      failed: failed.length,
    } satisfies TestRunsJson);
  } else {
    ctx.out(`${wf.spec} on ${shown}: ${runs} runs, seeds ${seed}–${seed + runs - 1}`);
    for (const o of sorted)
      ctx.out(
        `  ${String(o.count).padStart(String(runs).length)}  ${pct(o.count, runs)}  ${outcomeText(o)}  (seeds ${seedList(o.seeds)})`,
      );
    const again = `shop test ${name}${args.values.fixture ? ` --fixture ${args.values.fixture}` : ''} --seed ${failed[0]}`;
    ctx.out(
      failed.length
        ? `✗ ${failed.length} of ${runs} runs did not meet expect (${again} shows the first)`
        : `✓ all ${runs} runs met expect`,
    );
  }
  return failed.length ? 1 : 0;
}

function readFixture(ctx: Context, path: string, defaulted: boolean): Fixture {
  if (!existsSync(path)) {
    throw new UsageError(
      defaulted
        ? `no fixture: ${relative(ctx.cwd, path)} does not exist; write one or pass --fixture F.json (see README, "Testing a workflow")`
        : `fixture ${path} does not exist`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`fixture ${path} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = parseFixture(raw);
  if ('errors' in parsed) throw new UsageError(`bad fixture ${path}: ${parsed.errors.join('; ')}`);
  return parsed.fixture;
}

function count(raw: string | undefined, name: string, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > 1_000_000)
    throw new UsageError(`--${name} takes a whole number from ${min} to 1000000, not "${raw}"`);
  return n;
}

function simJson(sim: Simulation) {
  return {
    status: sim.status,
    result: sim.result ?? null,
    reason: sim.reason,
    calls: sim.calls,
    path: sim.path.map((l) => l.trim()),
  };
}

function printOne(out: (line: string) => void, spec: string, fixture: string, sim: Simulation, problems: string[]) {
  out(`${spec} on ${fixture}:`);
  for (const line of sim.path) out(line);
  out(`outcome: ${outcomeText(sim)}`);
  out(`calls: ${sim.calls.join(', ') || '(none)'}`);
  if (!problems.length) return out('✓ pass');
  out(`✗ fail: ${problems.length} difference${problems.length > 1 ? 's' : ''} from expect`);
  for (const p of problems) for (const line of p.split('\n')) out(`  ${line}`);
}

function outcomeText(o: { status: string; result: unknown; reason: string | null }): string {
  if (o.status === 'completed') return `completed ${JSON.stringify(o.result ?? null)}`;
  return `${o.status}${o.reason ? `: ${o.reason}` : ''}`;
}

const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(0).padStart(3)}%`;

function seedList(seeds: number[]): string {
  return seeds.length <= 8 ? seeds.join(', ') : `${seeds.slice(0, 8).join(', ')}, … ${seeds.length - 8} more`;
}
