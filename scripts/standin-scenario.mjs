// What the agent stand-ins (claude-standin.mjs, codex-standin.mjs, gemini-standin.mjs) share:
// the scenario (which step an invocation acts out), the invocation log, the spans, reporting as
// a real agent does (SHOP_SIGNAL_FILE, `shop report`, a <promise> tag), acting out a step
// (sleep_ms, block_file, drop_file, after_ms), the shell commands a step runs (leave, sh) and the
// interactive session's line loop.
// Each stand-in parses its own CLI's flags and prints its own CLI's output; the scenario format is
// documented in claude-standin.mjs. The environment it reads:
//   SHOP_AGENT, SHOP_RUN_ID, SHOP_CALL, SHOP_SIGNAL_FILE   what Shop gives every agent
//   SHOP_STANDIN_SCENARIO, SHOP_STANDIN_LOG, SHOP_STANDIN_PACE_MS, SHOP_STANDIN_SPANS, SHOP_HOSTNAME
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { holdPresence } from './standin-presence.mjs';

export const env = process.env;
export const signalFile = env.SHOP_SIGNAL_FILE;
export const logFile = env.SHOP_STANDIN_LOG || (signalFile ? join(dirname(signalFile), '..', 'standin.jsonl') : null);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until `file` (relative to the step's cwd) exists — a test's word that it has looked — at most a minute. */
async function untilFile(file) {
  for (let waited = 0; waited < 60_000 && !existsSync(file); waited += 50) await sleep(50);
}
export const agentName = () => env.SHOP_AGENT ?? 'agent';
export const oneLine = (text, n) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .slice(0, n);

/**
 * Which agent step this process is (SHOP_STEP, a nonce per start), logged as shop_step beside its
 * pid: in the PID namespace Shop may run an agent in, the pid is the namespace's own (2, the same
 * for every agent), and tests find the process the machine knows by this marker (harness.ts agentPid).
 */
const shopStep = env.SHOP_STEP ?? null;

/**
 * One stand-in process: `cli` names it in the log, `session()` is its session id (known only after
 * its flags are read, or once Codex chose a thread id), `interactive` its mode.
 */
export function standin({ cli, session, interactive }) {
  const mode = interactive ? 'interactive' : 'print';

  const span = (event, extra = {}) =>
    env.SHOP_STANDIN_SPANS &&
    appendFileSync(
      env.SHOP_STANDIN_SPANS,
      JSON.stringify({
        event,
        pid: process.pid,
        shop_step: shopStep,
        host: env.SHOP_HOSTNAME ?? null,
        session_id: session(),
        run: env.SHOP_RUN_ID,
        call: env.SHOP_CALL,
        agent: env.SHOP_AGENT,
        mode,
        cli,
        at: Date.now(),
        ...extra,
      }) + '\n',
    );

  /**
   * Logs its start and its end to SHOP_STANDIN_SPANS (call once its session id is known), its start
   * with its presence on the session and the others present then (standin-presence.mjs): a process
   * killed -9 logs no end, and its presence alone tells when it was gone.
   */
  async function startSpans() {
    if (!env.SHOP_STANDIN_SPANS) return;
    // Its handlers first: a stop that comes as its start is logged still logs its end.
    process.on('exit', (code) => span('end', { code }));
    // A stop (TERM), or its terminal gone (HUP), ends it through 'exit', so its end is logged too.
    process.on('SIGTERM', () => process.exit(143));
    process.on('SIGHUP', () => process.exit(129));
    span('start', await holdPresence(env.SHOP_STANDIN_SPANS, session() ?? '', shopStep ?? String(process.pid)));
  }

  /** One line of the invocation log, saying which CLI it stood in for. */
  function log(entry) {
    if (!logFile) return;
    mkdirSync(dirname(logFile), { recursive: true });
    appendFileSync(
      logFile,
      JSON.stringify({ at: Date.now(), pid: process.pid, shop_step: shopStep, cli, ...entry }) + '\n',
    );
  }

  /** Reports, with a span on both sides: a process killed in between may or may not have reported. */
  function reportWithSpans(step) {
    span('reporting', { status: step.status ?? 'DONE' });
    report(step);
    span('reported', { status: step.status ?? 'DONE' });
  }

  /**
   * Acts out a headless step after its stream: waits sleep_ms (and until_file exists), writes its files (write), reports
   * (unless via none/promise or is_error), honours block_file/drop_file, waits after_ms; returns
   * the agent's final text.
   */
  async function actOut(step) {
    if (step.sleep_ms) await sleep(step.sleep_ms);
    if (step.until_file) await untilFile(step.until_file);
    writeFiles(step);
    const via = step.via ?? 'file';
    if (step.block_file && signalFile) mkdirSync(signalFile, { recursive: true });
    if (via !== 'none' && via !== 'promise' && !step.is_error) reportWithSpans(step);
    if (step.block_file && signalFile) rmSync(signalFile, { recursive: true, force: true });
    if (step.drop_file && signalFile) rmSync(signalFile, { force: true });
    if (step.after_ms) await sleep(step.after_ms);
    let text = step.result ?? `${step.summary ?? step.reason ?? 'done'}`;
    if (via === 'promise')
      text += `\n<promise>${step.status ?? 'DONE'}: ${step.summary ?? step.reason ?? ''}</promise>`;
    return text;
  }

  /**
   * The interactive session's loop: reads the person's lines; after each, `remember`s it, logs it
   * (mode "said") and reports the step's reply_status; a line in `leave` ends it (exit 0).
   */
  async function chatLoop({ step, leave = ['/exit'], remember = () => {} }) {
    const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: '> ' });
    rl.prompt();
    for await (const line of rl) {
      if (leave.includes(line.trim())) break;
      log({ mode: 'said', run: env.SHOP_RUN_ID, session_id: session(), text: line });
      remember(line);
      // The built-in _checkpoint reviewer recommends; other agents finish their step.
      const status = step.reply_status ?? (env.SHOP_AGENT === '_checkpoint' ? 'CONTINUE' : 'DONE');
      const reason =
        status === 'NEEDS_HUMAN' ? 'still unsure' : status === 'STOP' ? `the person said: ${line}` : undefined;
      report({ status, summary: `done with the person's answer: ${line}`, reason });
      console.log(`Agent: thanks — reported ${status}. Type ${leave[0]} to leave.`);
      rl.prompt();
    }
    rl.close();
    process.exit(0);
  }

  return { span, startSpans, log, actOut, chatLoop, pickStep };
}

/**
 * A step's `write`: files the agent changes in its cwd before it reports, as an agent's Edit or
 * Write would — [{ path, text }] (one entry alone also works); text null deletes the file.
 */
export function writeFiles(step) {
  for (const w of step.write ? [step.write].flat() : []) {
    const file = join(process.cwd(), w.path);
    if (w.text === null) rmSync(file, { force: true });
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, w.text);
    }
  }
}

function readLog() {
  if (!logFile || !existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The scenario file, or null. */
export function readScenario() {
  return env.SHOP_STANDIN_SCENARIO ? JSON.parse(readFileSync(env.SHOP_STANDIN_SCENARIO, 'utf8')) : null;
}

/**
 * The step this invocation acts out: a when_prompt step whose pattern matches the prompt, else the
 * n-th other step of this agent in this run (n = its headless invocations logged so far, whatever
 * CLI made them, but for those marked pending; the last repeats), else the scenario's default, else DONE (a reviewer asks for
 * changes once per run first).
 */
export function pickStep(prompt) {
  const agent = agentName();
  // A Claude resume that only decided a deferred call (`pending`) acted out the earlier invocation's step: it takes none.
  const earlier = readLog().filter(
    (e) => e.mode === 'print' && !e.pending && e.agent === agent && e.run === env.SHOP_RUN_ID,
  ).length;
  const scenario = readScenario();
  if (scenario) {
    const all = scenario.agents?.[agent] ?? [];
    const matched = all.find(
      (s) => s.when_prompt !== undefined && new RegExp(s.when_prompt).test(String(prompt ?? '')),
    );
    if (matched) return matched;
    const steps = all.filter((s) => s.when_prompt === undefined);
    if (steps.length) return steps[Math.min(earlier, steps.length - 1)];
    if (scenario.default) return scenario.default;
  }
  if (agent === 'reviewer') {
    return earlier === 0
      ? { status: 'CHANGES_REQUESTED', summary: 'please add tests for the error paths' }
      : { status: 'APPROVED', summary: 'looks good' };
  }
  return { status: 'DONE', summary: `${agent} finished: ${oneLine(prompt, 60)}` };
}

/** The events a step streams: its own, else a thought, a Read and an Edit. */
export function streamOf(step, prompt) {
  return (
    step.stream ?? [
      { text: `Looking at the task: ${oneLine(prompt, 40)}` },
      { tool: 'Read', input: { file_path: 'README.md' } },
      { tool: 'Edit', input: { file_path: `src/${agentName()}.ts` } },
    ]
  );
}

/** The time between two streamed events. */
export const paceOf = (step) => step.pace_ms ?? Number(env.SHOP_STANDIN_PACE_MS ?? 0);

function signalBody(step) {
  const body = { status: step.status ?? 'DONE', ...(step.fields ?? {}) };
  for (const k of ['summary', 'reason', 'awaiting']) if (step[k] !== undefined) body[k] = step[k];
  return body;
}

function writeSignalFile(text) {
  if (!signalFile) throw new Error('SHOP_SIGNAL_FILE is not set');
  const tmp = `${signalFile}.standin.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, signalFile);
}

/**
 * Shop's MCP server as this stand-in's CLI was told of it (each reads its own configuration):
 * { server: { command, args, env }, inherit: 'all' | [names] (the variables the CLI hands its
 * servers), allowed(tool): null when the CLI lets the agent call mcp tool `tool` without asking,
 * else why not }. Null: the CLI was given no server named shop.
 */
let shopMcp = null;
export function useMcp(setup) {
  shopMcp = setup;
}

/**
 * A step with via "mcp" reports through Shop's MCP server, as a real agent calls a tool: `report`
 * with its status, summary, reason, awaiting and fields — or, with `ask` (its reason the question,
 * choices its options), the `ask` tool. mcp_env: variables over the server's (say, another
 * attempt's SHOP_SIGNAL_FILE). A refusal, a tool the CLI does not allow, or no server: the agent
 * ends without a report, the reason on stderr (exit 1).
 */
function reportOverMcp(step) {
  const tool = step.ask ? 'ask' : 'report';
  const fail = (why) => {
    process.stderr.write(`mcp ${tool}: ${why}\n`);
    process.exit(1);
  };
  if (!shopMcp) fail('no MCP server named shop was configured');
  const denied = shopMcp.allowed(tool);
  if (denied) fail(denied);
  const input = step.ask
    ? { question: step.reason ?? step.summary ?? '', ...(step.choices ? { choices: step.choices } : {}) }
    : { ...signalBody(step), ...(step.fields ? { fields: step.fields } : {}) };
  if (!step.ask) for (const k of Object.keys(step.fields ?? {})) delete input[k];
  const server = { ...shopMcp.server, env: { ...shopMcp.server.env, ...(step.mcp_env ?? {}) } };
  const helper = join(dirname(fileURLToPath(import.meta.url)), 'standin-mcp.mjs');
  const r = spawnSync(process.execPath, [helper, JSON.stringify({ server, inherit: shopMcp.inherit, tool, input })], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  process.stderr.write(r.stderr ?? '');
  const out = (r.stdout ?? '').trim().split('\n').pop() || '{}';
  const said = JSON.parse(out);
  if (said.error) fail(said.error);
  if (said.result?.isError) fail(said.result.text);
  if (!said.tools?.includes(tool)) fail(`the server offers no tool ${tool}`);
}

/** Reports as an agent does: its raw text, `shop report …` (via report), Shop's MCP tool (via mcp), else JSON written tmp + rename. */
export function report(step) {
  if (step.raw !== undefined) return writeSignalFile(step.raw);
  if (step.via === 'mcp') return reportOverMcp(step);
  const body = signalBody(step);
  if (step.via === 'report') {
    const extra = [];
    if (body.summary) extra.push('--summary', body.summary);
    if (body.reason) extra.push('--reason', body.reason);
    if (body.awaiting) extra.push('--awaiting', body.awaiting);
    for (const [k, v] of Object.entries(step.fields ?? {})) extra.push('--field', `${k}=${v}`);
    const r = spawnSync('shop', ['report', body.status, ...extra], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
    return;
  }
  writeSignalFile(JSON.stringify(body));
}

/**
 * The shell commands a step runs as an agent's Bash tool would, before its tool call and report:
 * `leave` is started in the background and left running — in a session and process group of its own
 * (setsid), not waited for — and `sh` is run to its end (sh -c, in the agent's cwd and environment);
 * returns what `sh` did ({ code, stdout, stderr }, for the invocation log), or null.
 */
export function stepShell(step) {
  if (step.leave) spawn('sh', ['-c', step.leave], { detached: true, stdio: 'ignore' }).unref();
  if (!step.sh) return null;
  const r = spawnSync('sh', ['-c', step.sh], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}
