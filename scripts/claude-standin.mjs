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
//         until_file (before reporting, after sleep_ms: waits until this file exists in its cwd),
//         after_ms (after reporting, before exiting), exit, is_error, result, cost, turns,
//         usage ({input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens}:
//         this process's tokens, default 1200/150/400/200), saved_totals (false: see spendOf),
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
//         written there), removed after,
//         leave: a shell command the agent leaves running in the background (sh -c in a session
//         of its own, as `setsid … &` from its Bash tool; never waited for), started before its
//         tool call and report,
//         sh: a shell command the agent runs to its end through its Bash tool (sh -c) before its
//         tool call and report; its code, stdout and stderr go in the log line as `shell`,
//         write: [{ path, text }] — files it changes in its cwd before it reports (text null:
//         deleted), as its Edit or Write tool would: an agent editing its own agent file }
//
// Tool gates (PreToolUse hooks, as Claude Code 2.1.330 runs them; see RESEARCH17 §1.2–1.6):
//   step.tool_call: { name, input } — before reporting, the agent calls that tool (after its stream;
//         streamed as an assistant tool_use, id `toolu_<random hex>`). Step fields it reads too:
//         denied_status (the status reported when the call is denied; default: status).
//   --settings <inline JSON | file path>: its hooks.PreToolUse groups [{ matcher, hooks: [{ type:
//         "command", command, timeout? (s, default 60) }] }]; matcher absent/""/"*" fits every tool,
//         else it is a regular expression on the whole tool name. Not JSON and no such file:
//         "Error: Settings file not found: <cwd>/<arg>", exit 1; a file that is not JSON is ignored.
//   Each fitting command runs through `sh -c`, in the cwd, with this process's environment (plus
//   CLAUDE_PROJECT_DIR), stdin: { session_id, transcript_path, cwd, prompt_id (not on a resume
//   deciding a pending call), permission_mode: "default", hook_event_name: "PreToolUse",
//   tool_name, tool_input, tool_use_id }. Exit 0 with { hookSpecificOutput: { permissionDecision:
//   allow|deny|defer, permissionDecisionReason?, updatedInput? } } decides (several hooks: deny >
//   defer > allow; "ask" counts as no decision); exit 0 with empty output or no decision: the tool
//   runs; exit 2: denied, its stderr (trimmed) the reason. Our choice for a hook that cannot run
//   (not found, killed, timed out), exits otherwise, or prints text that is not JSON: like Claude
//   Code, a non-blocking hook error — the tool runs (decision "none", the error in the log's reason).
//   A deny without a reason gets "Blocked by hook" (our choice).
//   Outcomes (the invocation's log line gets tool: { id, name, input (after updatedInput),
//   decision: "allow"|"none"|"deny"|"defer"|"unavailable", reason }):
//     allow / none: the tool "runs" (nothing is executed; its tool_result says `ran: …`), then the
//         step reports its status and summary — without a summary: `ran: <input.command, else the
//         input as JSON>`; AskUserQuestion: `answered: <JSON of input.answers, {} if none>`.
//     deny: reports denied_status ?? status with summary `denied: <reason>` (the model's tool_result:
//         `PreToolUse:<Tool> hook error: <reason>`); the result's permission_denials lists the call.
//     defer: prints the tool_use, then {"type":"result","subtype":"success","is_error":false,
//         "stop_reason":"tool_deferred","terminal_reason":"tool_deferred","result":"","num_turns":1,
//         "session_id","permission_denials":[],"deferred_tool_use":{id,name,input},"total_cost_usd"}
//         and exits 0 without reporting. The call stays pending in the transcript (its tool_use line
//         carries the step as standin_step), so a later `-p --resume <id>` finds it.
//     unavailable: AskUserQuestion without `--permission-prompt-tool stdio` (no hook runs): the model
//         gets "No such tool available"; the step reports its status and summary (default
//         `unavailable: AskUserQuestion`).
//   `-p --resume <id>` (a prompt optional) whose transcript has a pending call decides it first,
//   running the hooks again with the same tool_use_id and tool_input (no prompt_id). With no prompt
//   it acts out the pending call's own step as above (its log line says pending: true and is not
//   counted by the n-th-step rule); deferred again: the same tool_deferred result; a pending
//   AskUserQuestion without --permission-prompt-tool stdio: Claude Code's tool_deferred_unavailable
//   result (is_error, exit 1; its subtype is our guess). With a prompt, once the pending call is
//   allowed or denied (logged as pending_tool), the prompt takes its step as any invocation does
//   and only that step reports. In stream-json such a resume prints command_lifecycle started /
//   completed around its events: the result is not the last line, as with Claude Code.
//   `-p` takes the next argument as the prompt unless it is one of the flags above; `-p --resume
//   <id>` with no prompt and nothing pending fails as Claude Code 2.1.330 does ("Error: No deferred tool
//   marker found in the resumed session. …", exit 1).
//
// A list of steps scripts "fail twice, then succeed": [{ "fail": 529 }, { "fail": 529 }, { … }].
// A step with when_prompt (a regular expression) is taken whenever the prompt matches it, and
// the n-th rule counts only the others: an agent asks until its prompt carries the answer,
// however often it was restarted in between.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { env, paceOf, pickStep, signalFile, sleep, standin, stepShell, streamOf, useMcp } from './standin-scenario.mjs';

const VALUE_FLAGS = new Set([
  '--session-id',
  '--resume',
  '-r',
  '--output-format',
  '--append-system-prompt',
  '--model',
  '--permission-mode',
  '--max-budget-usd',
  '--settings',
  '--permission-prompt-tool',
  '--mcp-config',
]);
const KNOWN_FLAGS = new Set([
  ...VALUE_FLAGS,
  '-p',
  '--print',
  '--verbose',
  '--version',
  '--allowed-tools',
  '--allowedTools',
]);

function parseArgs(argv) {
  const a = { tools: [] };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '-p' || f === '--print') {
      // Print mode; the prompt follows it (Shop: `-p <prompt>`), or comes later as an argument,
      // or there is none (`-p --resume <id>`: a resume that decides a deferred tool call).
      a.print = true;
      if (argv[i + 1] !== undefined && !KNOWN_FLAGS.has(argv[i + 1])) a.prompt = argv[++i];
    } else if (f === '--allowed-tools' || f === '--allowedTools') {
      while (argv[i + 1] && !argv[i + 1].startsWith('--')) a.tools.push(argv[++i]);
    } else if (VALUE_FLAGS.has(f)) {
      a[f.replace(/^-+/, '')] = argv[++i];
    } else if (f === '--verbose') {
      a.verbose = true; // required by Claude Code with -p --output-format stream-json
    } else if (f === '--version') {
      console.log('0.0.0 (Shop stand-in for Claude Code)');
      process.exit(0);
    } else if (!f.startsWith('-') && a.initial === undefined) {
      a.initial = f; // `claude "prompt"`: an interactive session's first message (with -p: the prompt)
    } else {
      console.error(`error: unknown option '${f}'`);
      process.exit(1);
    }
  }
  if (a.print && a.prompt === undefined) a.prompt = a.initial;
  if (a['output-format'] === 'stream-json' && a.print && !a.verbose) {
    console.error('Error: When using --print, --output-format=stream-json requires --verbose');
    process.exit(1);
  }
  a.resume = a.resume ?? a.r;
  return a;
}

/** --settings: inline JSON, else a file (relative to the cwd); a missing file fails as Claude Code does, a bad one is ignored (-p). */
function readSettings(arg) {
  if (arg === undefined) return null;
  try {
    const inline = JSON.parse(arg);
    if (inline && typeof inline === 'object') return inline;
  } catch {
    /* not JSON: a path */
  }
  const file = resolve(process.cwd(), arg);
  if (!existsSync(file)) {
    console.error(`Error: Settings file not found: ${file}`);
    process.exit(1);
  }
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * --mcp-config: inline JSON or a file, { mcpServers: { <name>: { type?, command, args, env } } }.
 * Its servers get this process's environment with their env over it; in -p mode an MCP tool runs
 * only when --allowed-tools names it (mcp__<server>__<tool>) or permissions are bypassed.
 */
function readMcpConfig(arg) {
  if (arg === undefined) return;
  let config;
  try {
    config = JSON.parse(arg);
  } catch {
    const file = resolve(process.cwd(), arg);
    if (!existsSync(file)) {
      console.error(`Error: MCP config file not found: ${file}`);
      process.exit(1);
    }
    config = JSON.parse(readFileSync(file, 'utf8'));
  }
  const server = config?.mcpServers?.shop;
  if (!server) return;
  useMcp({
    server,
    inherit: 'all',
    allowed: (tool) =>
      args.tools.includes(`mcp__shop__${tool}`) || args['permission-mode'] === 'bypassPermissions'
        ? null
        : `Claude requested permissions to use mcp__shop__${tool}, but you haven't granted it yet.`,
  });
}

const args = parseArgs(process.argv.slice(2));
readMcpConfig(args['mcp-config']);
const sessionId = args['session-id'] ?? args.resume;
const interactive = !args.print;
const settings = readSettings(args.settings);
const { startSpans, log, actOut, chatLoop } = standin({ cli: 'claude', session: () => sessionId, interactive });
await startSpans();

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
  appendFileSync(
    file,
    JSON.stringify({
      type: role,
      sessionId,
      cwd: process.cwd(),
      timestamp: new Date().toISOString(),
      message: { role, content: role === 'user' ? String(text ?? '') : [{ type: 'text', text: String(text ?? '') }] },
    }) + '\n',
    { mode: 0o600 },
  );
}

/** A line of the transcript as Claude Code keeps one. */
function appendTranscript(entry) {
  const file = transcriptFile();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(
    file,
    JSON.stringify({ ...entry, sessionId, cwd: process.cwd(), timestamp: new Date().toISOString() }) + '\n',
    { mode: 0o600 },
  );
}

/** The assistant's tool_use, with the step it belongs to (standin_step: what a resume deciding it acts out). */
function rememberToolUse(call) {
  appendTranscript({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: call.name, input: call.input }] },
    standin_step: call.step,
  });
}

/** The last tool call in the transcript with no tool_result after it (one left deferred), or null. */
function pendingCall() {
  const open = new Map();
  for (const line of readFileSync(transcriptFile(), 'utf8').split('\n')) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const content = Array.isArray(entry?.message?.content) ? entry.message.content : [];
    for (const c of content) {
      if (c?.type === 'tool_use' && entry.standin_step)
        open.set(c.id, { id: c.id, name: c.name, input: c.input, step: entry.standin_step });
      if (c?.type === 'tool_result') open.delete(c.tool_use_id);
    }
  }
  return [...open.values()].at(-1) ?? null;
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
    process.stdout.write(
      JSON.stringify({
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        num_turns: 0,
        session_id: args.resume,
        total_cost_usd: 0,
        errors: [message],
      }) + '\n',
    );
  }
  console.error(message);
  process.exit(1);
}

async function headless() {
  const streaming = args['output-format'] === 'stream-json';
  // Like Claude Code: a session whose transcript is not on this machine (in this cwd) cannot be resumed.
  refuseMissingSession(streaming);
  const remembered = transcriptMessages() ?? 0;
  const pending = args.resume ? pendingCall() : null;
  if (!pending && args.prompt === undefined) {
    console.error(
      'Error: No deferred tool marker found in the resumed session. Either the session was not deferred, the marker is stale (tool already ran), or it exceeds the tail-scan window. Provide a prompt to continue the conversation.',
    );
    process.exit(1);
  }
  const logLine = (step, extra = {}) =>
    log({
      mode: 'print',
      agent: env.SHOP_AGENT,
      call: env.SHOP_CALL,
      run: env.SHOP_RUN_ID,
      session_id: sessionId,
      resumed: Boolean(args.resume),
      remembered,
      transcript: transcriptFile(),
      prompt: args.prompt ?? null,
      model: args.model ?? null,
      permission_mode: args['permission-mode'] ?? null,
      max_budget_usd: args['max-budget-usd'] === undefined ? null : Number(args['max-budget-usd']),
      allowed_tools: args.tools,
      system_prompt: args['append-system-prompt'] ?? null,
      signal_file: signalFile ?? null,
      cwd: process.cwd(),
      settings,
      permission_prompt_tool: args['permission-prompt-tool'] ?? null,
      step,
      ...(shell ? { shell } : {}),
      ...extra,
    });
  let shell = null;

  let pendingTool;
  if (pending) {
    // `-p --resume <id>` with a call left pending (deferred): it is decided first, the hooks run again.
    if (streaming) {
      emitInit();
      emit({ type: 'command_lifecycle', state: 'started' });
    }
    const decided = decide(pending, null);
    const tool = toolEntry(pending, decided);
    if (decided.decision === 'defer' || decided.decision === 'unavailable' || args.prompt === undefined)
      logLine(pending.step, { pending: true, tool });
    if (decided.decision === 'defer') return deferred(pending, { lifecycle: streaming });
    if (decided.decision === 'unavailable') return deferredUnavailable(pending);
    ran(pending, decided, streaming);
    if (args.prompt === undefined)
      return finish(outcome(pending.step, pending, decided), { tool, lifecycle: streaming });
    pendingTool = tool; // then the prompt, as a new invocation's step
  }

  const step = pickStep(args.prompt);
  remember('user', args.prompt);
  if (step.fail === undefined) shell = stepShell(step);
  if (!step.tool_call || step.fail !== undefined) {
    logLine(step, pendingTool ? { pending_tool: pendingTool } : {});
    if (step.fail !== undefined) return failLikeClaude(step, streaming);
    if (streaming) await streamEvents(step);
    return finish(step, { lifecycle: Boolean(pending) && streaming });
  }
  // The step's tool call: streamed, kept in the transcript (pending until decided), decided by the PreToolUse hooks.
  if (streaming) await streamEvents(step);
  const call = {
    id: `toolu_${randomBytes(12).toString('hex')}`,
    name: String(step.tool_call.name),
    input: step.tool_call.input ?? {},
    step,
  };
  if (streaming)
    emit({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: call.name, input: call.input }] },
    });
  rememberToolUse(call);
  const decided = decide(call, randomUUID());
  const tool = toolEntry(call, decided);
  logLine(step, { tool, ...(pendingTool ? { pending_tool: pendingTool } : {}) });
  if (decided.decision === 'defer') return deferred(call, { lifecycle: Boolean(pending) && streaming });
  ran(call, decided, streaming);
  return finish(outcome(step, call, decided), { tool, lifecycle: Boolean(pending) && streaming });
}

const emit = (event) => process.stdout.write(JSON.stringify({ ...event, session_id: sessionId }) + '\n');

const askAvailable = () => args['permission-prompt-tool'] === 'stdio';

let initDone = false;
function emitInit() {
  if (initDone) return;
  initDone = true;
  emit({
    type: 'system',
    subtype: 'init',
    cwd: process.cwd(),
    model: args.model ?? 'stand-in',
    tools: ['Read', 'Edit', 'Bash', ...(askAvailable() ? ['AskUserQuestion'] : [])],
  });
}

/**
 * A result's spend, as Claude Code 2.1 reports it: `usage` is the main loop's tokens,
 * `model_usage_since_last_result` this process's own tokens and cost; total_cost_usd and
 * modelUsage of a resumed session continue from the totals its transcript saved (kept beside
 * it here). step.saved_totals false: a session with no saved totals and no per-process field
 * (each process's figures are its own, as an older transcript gives).
 */
function spendOf(cost, step) {
  const model = args.model ?? 'stand-in';
  const own = {
    inputTokens: step.usage?.input_tokens ?? 1200,
    outputTokens: step.usage?.output_tokens ?? 150,
    cacheReadInputTokens: step.usage?.cache_read_input_tokens ?? 400,
    cacheCreationInputTokens: step.usage?.cache_creation_input_tokens ?? 200,
    costUSD: cost,
  };
  const usage = {
    input_tokens: own.inputTokens,
    output_tokens: own.outputTokens,
    cache_read_input_tokens: own.cacheReadInputTokens,
    cache_creation_input_tokens: own.cacheCreationInputTokens,
  };
  if (step.saved_totals === false) return { total_cost_usd: cost, usage, modelUsage: { [model]: own } };
  const file = `${transcriptFile()}.totals.json`;
  let saved = {};
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // No totals saved for this session yet: it starts from zero.
  }
  const total = Object.fromEntries(
    Object.entries(own).map(([k, v]) => [k, Math.round(((saved[k] ?? 0) + v) * 1e6) / 1e6]),
  );
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(total), { mode: 0o600 });
  return {
    total_cost_usd: total.costUSD,
    usage,
    modelUsage: { [model]: total },
    model_usage_since_last_result: { [model]: own },
  };
}

/** Acts the step out (reports), remembers its answer, prints the result and exits. */
async function finish(step, { tool = null, lifecycle = false } = {}) {
  const streaming = args['output-format'] === 'stream-json';
  const text = await actOut(step);
  remember('assistant', text);
  if (args['output-format'] === 'json' || streaming) {
    process.stdout.write(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: Boolean(step.is_error),
        duration_ms: step.sleep_ms ?? 5,
        num_turns: step.turns ?? 3,
        result: text,
        session_id: sessionId,
        ...spendOf(step.cost ?? 0.0125, step),
        ...(tool
          ? {
              permission_denials:
                tool.decision === 'deny'
                  ? [{ tool_name: tool.name, tool_use_id: tool.id, tool_input: tool.input }]
                  : [],
            }
          : {}),
      }) + '\n',
    );
    // On a resume that decided a deferred call, Claude Code's result is not its last line.
    if (lifecycle) emit({ type: 'command_lifecycle', state: 'completed' });
  } else {
    process.stdout.write(text + '\n');
  }
  process.exit(step.exit ?? (step.is_error ? 1 : 0));
}

/** A deferred call: Claude Code's tool_deferred result, exit 0, nothing reported; the call stays pending in the transcript. */
function deferred(call, { lifecycle }) {
  const result = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    stop_reason: 'tool_deferred',
    terminal_reason: 'tool_deferred',
    result: '',
    num_turns: 1,
    session_id: sessionId,
    permission_denials: [],
    deferred_tool_use: { id: call.id, name: call.name, input: call.input },
    ...spendOf(call.step.cost ?? 0.0125, call.step),
  };
  if (args['output-format'] === 'json' || args['output-format'] === 'stream-json')
    process.stdout.write(JSON.stringify(result) + '\n');
  else process.stdout.write('\n');
  if (lifecycle) emit({ type: 'command_lifecycle', state: 'completed' });
  process.exit(0);
}

/** A deferred AskUserQuestion resumed without --permission-prompt-tool stdio: Claude Code refuses to go on (exit 1). */
function deferredUnavailable(call) {
  const text = `${call.name} isn't available, so its deferred call didn't run. Reconnect the tool and resume, or resume with a prompt and CLAUDE_CODE_DROP_UNAVAILABLE_DEFERRED_TOOL=1 to drop the call and continue.`;
  if (args['output-format'] === 'json' || args['output-format'] === 'stream-json') {
    process.stdout.write(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: true,
        stop_reason: 'tool_deferred_unavailable',
        terminal_reason: 'tool_deferred_unavailable',
        result: text,
        num_turns: 0,
        session_id: sessionId,
        permission_denials: [],
        deferred_tool_use: { id: call.id, name: call.name, input: call.input },
        total_cost_usd: 0,
      }) + '\n',
    );
  } else {
    process.stdout.write(text + '\n');
  }
  process.exit(1);
}

/** What the model sees once a call is decided (its tool_result), kept in the transcript and streamed. */
function ran(call, decided, streaming) {
  const [content, isError] = {
    deny: [`PreToolUse:${call.name} hook error: ${decided.reason}`, true],
    unavailable: [
      `<tool_use_error>Error: No such tool available: ${call.name}. ${call.name} is disabled for this session, in subagents as well as here.</tool_use_error>`,
      true,
    ],
  }[decided.decision] ?? [
    call.name === 'AskUserQuestion'
      ? `Your questions have been answered: ${Object.entries(decided.input.answers ?? {})
          .map(([q, a]) => `"${q}"="${a}"`)
          .join(', ')}. You can now continue with these answers in mind.`
      : `ran: ${ranText(decided.input)}`,
    false,
  ];
  const result = { type: 'tool_result', tool_use_id: call.id, content, is_error: isError };
  appendTranscript({ type: 'user', message: { role: 'user', content: [result] } });
  if (streaming) emit({ type: 'user', message: { role: 'user', content: [result] } });
}

const ranText = (input) => (typeof input?.command === 'string' ? input.command : JSON.stringify(input));

/** The step as reported once its call is decided. */
function outcome(step, call, decided) {
  if (decided.decision === 'deny')
    return { ...step, status: step.denied_status ?? step.status, summary: `denied: ${decided.reason}` };
  if (step.summary !== undefined) return step;
  if (decided.decision === 'unavailable') return { ...step, summary: `unavailable: ${call.name}` };
  if (call.name === 'AskUserQuestion')
    return { ...step, summary: `answered: ${JSON.stringify(decided.input.answers ?? {})}` };
  return { ...step, summary: `ran: ${ranText(decided.input)}` };
}

/** The invocation log's `tool`: the call, its input as it ran (after updatedInput), the decision and its reason. */
const toolEntry = (call, decided) => ({
  id: call.id,
  name: call.name,
  input: decided.input,
  decision: decided.decision,
  reason: decided.reason ?? null,
});

/**
 * Decides a tool call as Claude Code does before running it: AskUserQuestion is missing in -p
 * without --permission-prompt-tool stdio; else every PreToolUse hook of --settings whose matcher
 * fits runs (sh -c, stdin its JSON), deny > defer > ask > allow. Returns { decision, input, reason }.
 */
function decide(call, promptId) {
  if (call.name === 'AskUserQuestion' && !askAvailable())
    return { decision: 'unavailable', input: call.input, reason: 'No such tool available: AskUserQuestion' };
  const groups = Array.isArray(settings?.hooks?.PreToolUse) ? settings.hooks.PreToolUse : [];
  const commands = groups
    .filter((g) => matches(g?.matcher, call.name))
    .flatMap((g) => (Array.isArray(g.hooks) ? g.hooks : []))
    .filter((h) => h?.type === 'command' && typeof h.command === 'string');
  const input = JSON.stringify({
    session_id: sessionId,
    transcript_path: transcriptFile(),
    cwd: process.cwd(),
    ...(promptId ? { prompt_id: promptId } : {}),
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: call.name,
    tool_input: call.input,
    tool_use_id: call.id,
  });
  const answers = commands.map((h) => runHook(h, input));
  for (const decision of ['deny', 'defer', 'ask', 'allow']) {
    const chosen = answers.filter((a) => a.decision === decision);
    if (!chosen.length) continue;
    if (decision === 'ask') break; // not Shop's: no decision, the normal flow
    const updated = chosen
      .map((a) => a.updatedInput)
      .filter((u) => u && typeof u === 'object')
      .at(-1);
    return {
      decision,
      input: decision === 'allow' && updated ? updated : call.input,
      reason: chosen.map((a) => a.reason).find((r) => r) ?? (decision === 'deny' ? 'Blocked by hook' : null),
    };
  }
  const errors = answers.map((a) => a.error).filter(Boolean);
  return { decision: 'none', input: call.input, reason: errors.length ? errors.join('; ') : null };
}

/** A matcher: absent, empty or `*` fits every tool; else a regular expression on the whole tool name. */
function matches(matcher, name) {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(name);
  } catch {
    return false;
  }
}

/** One hook command: exit 0 and its JSON decides (empty: no decision), exit 2 denies (stderr the reason), anything else is a non-blocking error. */
function runHook(hook, input) {
  const r = spawnSync('sh', ['-c', hook.command], {
    input,
    cwd: process.cwd(),
    encoding: 'utf8',
    env: { ...env, CLAUDE_PROJECT_DIR: process.cwd() },
    timeout: (Number(hook.timeout) || 60) * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  // A hook that ends before reading its input (a command not found: exit 127) is judged by its exit, as Claude Code does;
  // writing to it then fails with EPIPE, or not, as the two processes happen to race.
  if (r.error && (r.error.code !== 'EPIPE' || r.status === null))
    return { error: `PreToolUse hook error: ${r.error.message}` };
  if (r.status === 2) return { decision: 'deny', reason: r.stderr.trim() || null };
  if (r.status !== 0) return { error: `PreToolUse hook error: exit ${r.status ?? r.signal}: ${r.stderr.trim()}` };
  const out = r.stdout.trim();
  if (!out) return {};
  let parsed;
  try {
    parsed = JSON.parse(out);
  } catch {
    return { error: `PreToolUse hook error: its output is not JSON: ${out.slice(0, 200)}` };
  }
  const o = parsed?.hookSpecificOutput;
  if (!o || !['allow', 'deny', 'defer', 'ask'].includes(o.permissionDecision)) return {};
  return {
    decision: o.permissionDecision,
    reason: typeof o.permissionDecisionReason === 'string' ? o.permissionDecisionReason : null,
    updatedInput: o.updatedInput,
  };
}

/** Claude Code's own failures, as it prints them (2.1: a synthetic assistant message, then the result). */
const API_FAILURES = {
  529: [
    'overloaded',
    'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_standin"}',
  ],
  429: [
    'rate_limit',
    'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."},"request_id":"req_standin"}',
  ],
  500: [
    'server_error',
    'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_standin"}',
  ],
  auth: ['authentication_failed', 'Invalid API key · Please run /login'],
};

async function failLikeClaude(step, streaming) {
  const emit = (event) => process.stdout.write(JSON.stringify({ ...event, session_id: sessionId }) + '\n');
  if (step.sleep_ms) await sleep(step.sleep_ms);
  if (step.fail === 'network') {
    if (streaming)
      emit({ type: 'system', subtype: 'init', cwd: process.cwd(), model: args.model ?? 'stand-in', tools: [] });
    process.stderr.write(
      'TypeError: fetch failed\n    at node:internal/deps/undici/undici:13510:13\n  [cause]: Error: read ECONNRESET\n',
    );
    process.exit(step.exit ?? 1);
  }
  const [error, text] = API_FAILURES[step.fail] ?? API_FAILURES[529];
  const status = step.fail === 'auth' ? 401 : Number(step.fail) || 529;
  const result = step.fail_text ?? text;
  if (streaming) {
    emit({ type: 'system', subtype: 'init', cwd: process.cwd(), model: args.model ?? 'stand-in', tools: [] });
    emit({
      type: 'assistant',
      message: { model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: result }] },
      error,
      is_api_error_message: true,
    });
  }
  if (streaming || args['output-format'] === 'json') {
    emit({
      type: 'result',
      subtype: 'success',
      is_error: true,
      terminal_reason: 'api_error',
      api_error_status: status,
      duration_ms: 5,
      num_turns: 1,
      result,
      total_cost_usd: step.cost ?? 0,
    });
  } else {
    process.stdout.write(result + '\n');
  }
  process.exit(step.exit ?? 1);
}

/** stream-json: the init line, then the step's events (assistant messages), paced. */
async function streamEvents(step) {
  emitInit();
  const events = streamOf(step, args.prompt);
  const pace = paceOf(step);
  for (const [i, e] of events.entries()) {
    const content = e.tool
      ? [{ type: 'tool_use', id: `tool-${i}`, name: e.tool, input: e.input ?? {} }]
      : [{ type: 'text', text: e.text }];
    emit({ type: 'assistant', message: { role: 'assistant', content } });
    if (pace) await sleep(pace);
  }
}

async function chat() {
  // `claude --resume <id>` attached to a terminal: the person talks to the agent.
  refuseMissingSession(false);
  const remembered = transcriptMessages() ?? 0;
  const step = pickStep(args.prompt);
  log({
    mode: 'interactive',
    agent: env.SHOP_AGENT,
    call: env.SHOP_CALL,
    run: env.SHOP_RUN_ID,
    session_id: sessionId,
    cwd: process.cwd(),
    resumed: Boolean(args.resume),
    remembered,
    transcript: transcriptFile(),
    prompt: args.initial ?? null,
    system_prompt: args['append-system-prompt'] ?? null,
  });
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
