import { describe, expect, it } from 'vitest';
import { makeProject, runId } from './harness.js';

/**
 * Text from agents and workflows is data, never terminal control: a reason, a summary or a
 * pause message holding escape sequences is shown escaped on every human output and on the
 * desktop notifier's stderr fallback; --json keeps the exact text (JSON escapes it).
 */

const REASON = '\u001b]0;pwned\u0007\u001b[2JWhich database?\u009b2J\u202e';
const SHOWN_REASON = '\\x1b]0;pwned\\x07\\x1b[2JWhich database?\\u009b2J\\u202e';
const SUMMARY = 'done\r\u001b[K';

/** Anything a terminal would act on: C0 but line feed, DEL, C1, bidi controls. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const WORKFLOW = `config{ notify = {"desktop"} }
function workflow(prompt)
  local a = run("coder", prompt)
  pause("\\27[2JShip " .. a.summary .. "?")
  return a.summary
end
`;

describe('agent and workflow text on a terminal', () => {
  it('run, list, status, inbox, log, answer and the desktop fallback show control characters escaped; --json keeps them', () => {
    const p = makeProject();
    p.write('workflows/hostile.lua', WORKFLOW);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: REASON },
          { status: 'DONE', summary: SUMMARY },
        ],
      },
    });
    // No notify-send on this PATH (only node, for the stand-in): the notice goes to stderr.
    const run = p.shop(['run', 'hostile', 'x'], { env: { PATH: `${process.execPath.replace(/\/node$/, '')}` } });
    expect(run.code).toBe(3);
    const id = runId(run);
    const outputs: Record<string, string> = { run: run.stdout + run.stderr };
    expect(run.stdout).toContain(SHOWN_REASON);
    expect(run.stderr).toContain(`shop: run ${id} (hostile) waits for you: ${SHOWN_REASON}`);

    for (const cmd of [['list'], ['status', String(id)], ['inbox'], ['log', String(id)]]) {
      const r = p.shop(cmd);
      expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(0);
      outputs[cmd[0]] = r.stdout + r.stderr;
    }
    expect(outputs.status).toContain(SHOWN_REASON);
    expect(outputs.inbox).toContain('\\x1b]0;pwned');
    expect(outputs.list).toContain('\\x1b]0;pwned');

    // The exact text stays in the data.
    expect(p.status(id).pending?.question).toBe(REASON);

    const answered = p.shop(['answer', String(id), 'pg'], {
      env: { PATH: `${process.execPath.replace(/\/node$/, '')}` },
    });
    expect(answered.code).toBe(3);
    outputs.answer = answered.stdout + answered.stderr;
    expect(answered.stdout).toContain('done\\r\\x1b[K');
    expect(answered.stdout).toContain('\\x1b[2JShip done\\r\\x1b[K?');

    const log = p.shop(['log', String(id)]);
    outputs.log2 = log.stdout + log.stderr;
    for (const [name, text] of Object.entries(outputs))
      expect(text, `${name} printed a raw control character`).not.toMatch(RAW);
  });

  it('shop continue at a structured pause shows its decisions and the prompt with the default escaped', () => {
    const p = makeProject();
    p.write(
      'workflows/pick.lua',
      `function workflow(prompt)
  local r = pause{ message = "\\27]0;title\\7Pick", decisions = {
    { id = "env", type = "text", prompt = "Where\\27[2J?", default = "\\27[31mstaging" } } }
  return r.answers.env
end
`,
    );
    const run = p.shop(['run', 'pick']);
    expect(run.code).toBe(3);
    const r = p.shop(['continue', String(runId(run))], { input: '\ny\n\n' });
    expect(r.stdout).toContain('env: Where\\x1b[2J?');
    expect(r.stdout).toContain('[\\x1b[31mstaging]');
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.code).toBe(0);
  });

  it("a multi-line question or log() cannot forge a line of Shop's own: its later lines are indented (run and status)", () => {
    const p = makeProject();
    p.write(
      'workflows/forge.lua',
      'function workflow(p)\n  log("checked\\nrun 98 completed: \\"fake\\"")\n  return run("coder", p)\nend\n',
    );
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which DB?\nrun 99 completed: "fake"' }] } });
    const run = p.shop(['run', 'forge']);
    expect(run.code).toBe(3);
    const id = runId(run);
    const status = p.shop(['status', String(id)]);
    for (const out of [run.stdout, status.stdout]) expect(out).not.toMatch(/^run 9[89] completed/m);
    expect(run.stdout).toContain('  log: checked\n      run 98 completed: "fake"\n');
    expect(run.stdout).toContain(
      `run ${id} is waiting for a person (input): coder asks: Which DB?\n    run 99 completed: "fake"\n`,
    );
    expect(status.stdout).toContain('coder asks: Which DB?\n    run 99 completed: "fake"\n');
  });
});
