#!/usr/bin/env node
// A stand-in for the `claude` CLI, for tests and the demo (point SHOP_CLAUDE_BIN here).
// It accepts Claude Code's real flags, logs every invocation as one JSON line, acts out a
// scenario, reports through SHOP_SIGNAL_FILE like a real agent would, and prints Claude's
// `--output-format json` result.
//
//   SHOP_STANDIN_SCENARIO  JSON file: { "agents": { "<agent>": [step, …] }, "default": step }
//                          the n-th headless invocation of an agent in a run takes step n
//                          (the last step repeats). Without one: every agent reports DONE,
//                          except a reviewer, who asks for changes once per run, then APPROVED.
//   SHOP_STANDIN_LOG       invocation log (default: <signals folder>/../standin.jsonl)
//   SHOP_STANDIN_PACE_MS   with --output-format stream-json, the time between two events
//                          (default 0; the demo slows it down so progress shows)
//   SHOP_STANDIN_SPANS     a file where each invocation appends its start and its end (pid,
//                          session, time, exit code, and SHOP_HOSTNAME as host: tests run
//                          several "machines" on one), and when it reported (its status):
//                          no two may overlap on one session
//   CLAUDE_CONFIG_DIR      like Claude Code: each session's transcript is kept in
//                          <CLAUDE_CONFIG_DIR, else ~/.claude>/projects/<cwd, every character but
//                          a-z A-Z 0-9 as ->/<session>.jsonl (CLAUDE_CODE_PROJECT_DIR_NAME overrides the
//                          folder); --resume of a session with no transcript there fails as Claude
//                          Code does ("No conversation found with session ID: …"), and so does
//                          --session-id of one that has one ("Session ID … is already in use")
//
// The scenario, the log, the spans and reporting are shared with the Codex and Gemini stand-ins
// (scripts/standin-scenario.mjs); every log and span line says which CLI it was ("cli":"claude").
//
// Without -p it is an interactive session (`claude --resume <id>`, or `claude --session-id <id>
// "first message"`): it reads the person's lines, reports after each one, /exit leaves.
//
// step: { status, summary, reason, awaiting, fields, via: "file"|"report"|"promise"|"none",
//         raw (text written as the signal file), sleep_ms (before reporting),
//         after_ms (after reporting, before exiting), exit, is_error, result, cost, turns,
//         reply_status (what an interactive session reports after the person speaks),
//         stream: [{ text } | { tool, input }] (stream-json events; default: a thought, a Read,
//         an Edit), pace_ms (time between them),
//         fail: 529 | 429 | 500 | "network" | "auth" — the invocation fails as Claude Code does
//         (529/429/500/auth: its `result` with is_error and api_error_status, "API Error: …";
//         network: "fetch failed … ECONNRESET" on stderr, no result), without reporting;
//         fail_text: the result text instead of the real one,
//         drop_file: after reporting, its signal file is deleted (as if written on another
//         machine's disk: only what shop report kept in the store remains),
//         block_file: a folder stands at its signal path while it reports (the file cannot be
//         written there), removed after }
// A list of steps scripts "fail twice, then succeed": [{ "fail": 529 }, { "fail": 529 }, { … }].
// A step with when_prompt (a regular expression) is taken whenever the prompt matches it, and
// the n-th rule counts only the others: an agent asks until its prompt carries the answer,
// however often it was restarted in between.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { env, paceOf, pickStep, signalFile, sleep, standin, streamOf } from './standin-scenario.mjs';

const VALUE_FLAGS = new Set(['-p', '--print', '--session-id', '--resume', '-r', '--output-format', '--append-system-prompt', '--model', '--permission-mode', '--max-budget-usd']);

function parseArgs(argv) {
  const a = { tools: [] };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--allowed-tools' || f === '--allowedTools') {
      while (argv[i + 1] && !argv[i + 1].startsWith('--')) a.tools.push(argv[++i]);
    } else if (VALUE_FLAGS.has(f)) {
      a[f.replace(/^-+/, '')] = argv[++i];
    } else if (f === '--verbose') {
      a.verbose = true; // required by Claude Code with -p --output-format stream-json
    } else if (f === '--version') {
      console.log('0.0.0 (Shop stand-in for Claude Code)');
      process.exit(0);
    } else if (!f.startsWith('-') && a.initial === undefined) {
      a.initial = f; // `claude "prompt"`: an interactive session's first message
    } else {
      console.error(`error: unknown option '${f}'`);
      process.exit(1);
    }
  }
  a.prompt = a.p ?? a.print;
  if (a['output-format'] === 'stream-json' && a.prompt !== undefined && !a.verbose) {
    console.error('Error: When using --print, --output-format=stream-json requires --verbose');
    process.exit(1);
  }
  a.resume = a.resume ?? a.r;
  return a;
}

const args = parseArgs(process.argv.slice(2));
const sessionId = args['session-id'] ?? args.resume;
const interactive = args.prompt === undefined;
const { startSpans, log, actOut, chatLoop } = standin({ cli: 'claude', session: () => sessionId, interactive });
startSpans();

/** Claude Code 2.1's transcript path (see packages/core/src/agents/claude-transcript.ts). */
function transcriptFile() {
  const config = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  let name = process.cwd().replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length > 200) {
    let h = 0;
    for (const c of process.cwd()) h = ((h << 5) - h + c.charCodeAt(0)) | 0;
    name = `${name.slice(0, 200)}-${Math.abs(h).toString(36)}`;
  }
  return join(config, 'projects', env.CLAUDE_CODE_PROJECT_DIR_NAME || name, `${sessionId}.jsonl`);
}

/** One line of the session's transcript (a user's or the assistant's message), appended like Claude Code does. */
function remember(role, text) {
  const file = transcriptFile();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(file, JSON.stringify({ type: role, sessionId, cwd: process.cwd(), timestamp: new Date().toISOString(),
    message: { role, content: role === 'user' ? String(text ?? '') : [{ type: 'text', text: String(text ?? '') }] } }) + '\n', { mode: 0o600 });
}

/** The transcript's messages so far (what a resumed session remembers). */
function transcriptMessages() {
  const file = transcriptFile();
  if (!existsSync(file)) return null;
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
}

/** Like Claude Code: a new session under an id whose transcript is here already is refused. */
function refuseTakenSession() {
  if (args.resume || transcriptMessages() === null) return;
  console.error(`Error: Session ID ${sessionId} is already in use.`);
  process.exit(1);
}

/** Like Claude Code: a session with no transcript here cannot be resumed (in print mode the result says so too). */
function refuseMissingSession(streaming) {
  refuseTakenSession();
  if (!args.resume || transcriptMessages() !== null) return;
  const message = `No conversation found with session ID: ${args.resume}`;
  if (streaming || args['output-format'] === 'json') {
    process.stdout.write(JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, num_turns: 0,
      session_id: args.resume, total_cost_usd: 0, errors: [message] }) + '\n');
  }
  console.error(message);
  process.exit(1);
}

async function headless() {
  // Like Claude Code: a session whose transcript is not on this machine (in this cwd) cannot be resumed.
  refuseMissingSession(args['output-format'] === 'stream-json');
  const remembered = transcriptMessages() ?? 0;
  const step = pickStep(args.prompt);
  remember('user', args.prompt);
  log({ mode: 'print', agent: env.SHOP_AGENT, call: env.SHOP_CALL, run: env.SHOP_RUN_ID, session_id: sessionId,
    resumed: Boolean(args.resume), remembered, transcript: transcriptFile(), prompt: args.prompt, model: args.model ?? null, permission_mode: args['permission-mode'] ?? null,
    max_budget_usd: args['max-budget-usd'] === undefined ? null : Number(args['max-budget-usd']),
    allowed_tools: args.tools, system_prompt: args['append-system-prompt'] ?? null, signal_file: signalFile ?? null, cwd: process.cwd(), step });
  const streaming = args['output-format'] === 'stream-json';
  if (step.fail !== undefined) return failLikeClaude(step, streaming);
  if (streaming) await streamEvents(step);
  const text = await actOut(step);
  remember('assistant', text);
  if (args['output-format'] === 'json' || streaming) {
    process.stdout.write(JSON.stringify({
      type: 'result', subtype: 'success', is_error: Boolean(step.is_error), duration_ms: step.sleep_ms ?? 5,
      num_turns: step.turns ?? 3, result: text, session_id: sessionId, total_cost_usd: step.cost ?? 0.0125,
    }) + '\n');
  } else {
    process.stdout.write(text + '\n');
  }
  process.exit(step.exit ?? (step.is_error ? 1 : 0));
}

/** Claude Code's own failures, as it prints them (2.1: a synthetic assistant message, then the result). */
const API_FAILURES = {
  529: ['overloaded', 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_standin"}'],
  429: ['rate_limit', 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."},"request_id":"req_standin"}'],
  500: ['server_error', 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_standin"}'],
  auth: ['authentication_failed', 'Invalid API key · Please run /login'],
};

async function failLikeClaude(step, streaming) {
  const emit = (event) => process.stdout.write(JSON.stringify({ ...event, session_id: sessionId }) + '\n');
  if (step.sleep_ms) await sleep(step.sleep_ms);
  if (step.fail === 'network') {
    if (streaming) emit({ type: 'system', subtype: 'init', cwd: process.cwd(), model: args.model ?? 'stand-in', tools: [] });
    process.stderr.write('TypeError: fetch failed\n    at node:internal/deps/undici/undici:13510:13\n  [cause]: Error: read ECONNRESET\n');
    process.exit(step.exit ?? 1);
  }
  const [error, text] = API_FAILURES[step.fail] ?? API_FAILURES[529];
  const status = step.fail === 'auth' ? 401 : Number(step.fail) || 529;
  const result = step.fail_text ?? text;
  if (streaming) {
    emit({ type: 'system', subtype: 'init', cwd: process.cwd(), model: args.model ?? 'stand-in', tools: [] });
    emit({ type: 'assistant', message: { model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: result }] }, error, is_api_error_message: true });
  }
  if (streaming || args['output-format'] === 'json') {
    emit({ type: 'result', subtype: 'success', is_error: true, terminal_reason: 'api_error', api_error_status: status, duration_ms: 5,
      num_turns: 1, result, total_cost_usd: step.cost ?? 0 });
  } else {
    process.stdout.write(result + '\n');
  }
  process.exit(step.exit ?? 1);
}

/** stream-json: the init line, then the step's events (assistant messages), paced. */
async function streamEvents(step) {
  const emit = (event) => process.stdout.write(JSON.stringify({ ...event, session_id: sessionId }) + '\n');
  emit({ type: 'system', subtype: 'init', cwd: process.cwd(), model: args.model ?? 'stand-in', tools: ['Read', 'Edit', 'Bash'] });
  const events = streamOf(step, args.prompt);
  const pace = paceOf(step);
  for (const [i, e] of events.entries()) {
    const content = e.tool ? [{ type: 'tool_use', id: `tool-${i}`, name: e.tool, input: e.input ?? {} }] : [{ type: 'text', text: e.text }];
    emit({ type: 'assistant', message: { role: 'assistant', content } });
    if (pace) await sleep(pace);
  }
}

async function chat() {
  // `claude --resume <id>` attached to a terminal: the person talks to the agent.
  refuseMissingSession(false);
  const remembered = transcriptMessages() ?? 0;
  const step = pickStep(args.prompt);
  log({ mode: 'interactive', agent: env.SHOP_AGENT, call: env.SHOP_CALL, run: env.SHOP_RUN_ID, session_id: sessionId, cwd: process.cwd(),
    resumed: Boolean(args.resume), remembered, transcript: transcriptFile(), prompt: args.initial ?? null, system_prompt: args['append-system-prompt'] ?? null });
  console.log(`Claude Code (stand-in) — ${args.resume ? 'resumed' : 'new'} session ${sessionId}`);
  if (args.initial) console.log(`You: ${args.initial}`);
  console.log('Type your reply to the agent, or /exit to leave.');
  await chatLoop({ step, remember: (line) => remember('user', line) });
}

if (!sessionId) {
  console.error('error: the stand-in needs --session-id or --resume');
  process.exit(1);
}
await (interactive ? chat() : headless());
