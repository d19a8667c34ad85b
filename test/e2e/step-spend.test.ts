import { describe, expect, it } from 'vitest';
import { makeProject, runId } from './harness.js';

const ASK = 'function workflow(p) return run("coder", "pick a region").summary end\n';

/** One step that asks a person, then finishes on its resumed session: two agent processes. */
function askThenFinish(savedTotals: boolean) {
  const p = makeProject();
  p.write('workflows/ask.lua', ASK);
  const usage = (n: number) => ({
    input_tokens: 1000 * n,
    output_tokens: 100 * n,
    cache_read_input_tokens: 10 * n,
    cache_creation_input_tokens: n,
  });
  p.scenario({
    agents: {
      coder: [
        { status: 'NEEDS_HUMAN', reason: 'Which region?', cost: 0.25, usage: usage(1), saved_totals: savedTotals },
        { status: 'DONE', summary: 'eu-west', cost: 0.5, usage: usage(2), saved_totals: savedTotals },
      ],
    },
  });
  const id = runId(p.shop(['run', 'ask']));
  const a = p.shop(['answer', String(id), 'eu-west', '--by', 'alice']);
  expect(a.stderr).toBe('');
  expect(a.code).toBe(0);
  return p.status(id);
}

const SUMMED = {
  status: 'completed',
  cost_usd: 0.75,
  input_tokens: 3000,
  output_tokens: 300,
  cache_read_tokens: 30,
  cache_write_tokens: 3,
};

describe("a step's spend over its invocations (Claude Code)", () => {
  it('sums what each process spent: the ask and the resumed session that finished', () => {
    // Claude Code 2.1 continues a resumed session's total_cost_usd from the saved total (0.75 here):
    // Shop reads each process's own spend (model_usage_since_last_result) and adds them up.
    const detail = askThenFinish(true);
    expect(detail.executions[0]).toMatchObject(SUMMED);
    expect(detail.cost_usd).toBe(0.75);
  });

  it('sums them too where each process reports only its own figures (no saved totals)', () => {
    const detail = askThenFinish(false);
    expect(detail.executions[0]).toMatchObject(SUMMED);
    expect(detail.cost_usd).toBe(0.75);
  });
});

/** The same ask-then-finish step on another CLI, with its own figures. */
function askThenFinishOn(cli: 'codex' | 'gemini') {
  const p = makeProject();
  p.write('workflows/ask.lua', ASK);
  p.write('agents/coder.md', `---\ncli: ${cli}\n---\nYou write code.\n`);
  p.scenario({
    agents: {
      coder: [
        { status: 'NEEDS_HUMAN', reason: 'Which region?' },
        { status: 'DONE', summary: 'eu-west' },
      ],
    },
  });
  const id = runId(p.shop(['run', 'ask']));
  const a = p.shop(['answer', String(id), 'eu-west', '--by', 'alice']);
  expect(a.stderr).toBe('');
  expect(a.code).toBe(0);
  return p.status(id).executions[0];
}

describe("a step's tokens on Codex and Gemini CLI", () => {
  it("Codex: its thread's running total is the step's, not added again for each process", () => {
    // The stand-in, as Codex: 1,200 input (400 of them cached) and 150 output a turn, reported as the
    // thread's total — 1 turn after the ask, 2 once resumed. Shop's input is what was read fresh.
    expect(askThenFinishOn('codex')).toMatchObject({
      status: 'completed',
      input_tokens: 1600,
      cache_read_tokens: 800,
      output_tokens: 300,
      cache_write_tokens: null,
      cost_usd: null,
    });
  });

  it("Gemini CLI: each process's stats are its own, summed", () => {
    // The stand-in, as Gemini CLI: 1,200 input (none cached) and 150 output in each process's stats.
    expect(askThenFinishOn('gemini')).toMatchObject({
      status: 'completed',
      input_tokens: 2400,
      cache_read_tokens: 0,
      output_tokens: 300,
      cache_write_tokens: null,
      cost_usd: null,
    });
  });
});
