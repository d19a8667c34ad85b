// The stub step both sides of the PostgreSQL comparison run: the same tiny bash script, as
// Shop's agent (`command:` front matter) and inside DBOS's `DBOS.runStep`, so each step costs
// both engines one child process and nothing else. It appends "<tag> <epoch µs>" to the
// step log (one short O_APPEND write: atomic across processes), sleeps BENCH_STEP_SLEEP
// seconds if set (the takeover scenario needs a step to be killed in), and reports DONE the
// way Shop's agents do (the signal file, and Claude's result line on stdout). A step Shop
// runs again after a kill (on its session, its prompt "You were interrupted … The task:
// <tag>") is logged under its tag, as DBOS's step run again is.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SCRIPT = `#!/bin/bash
# A step Shop re-invokes after a kill gets "You were interrupted … The task: <its prompt>": logged as that task.
echo "\${1##*The task: } \${EPOCHREALTIME/./}" >> "$BENCH_STEP_LOG"
if [ -n "$BENCH_STEP_SLEEP" ]; then sleep "$BENCH_STEP_SLEEP"; fi
if [ -n "$SHOP_SIGNAL_FILE" ]; then printf '{"status":"DONE"}' > "$SHOP_SIGNAL_FILE"; fi
echo '{"type":"result","is_error":false,"result":"ok","total_cost_usd":0,"num_turns":1}'
`;

/** Writes the stub into `dir`; returns its path and the (empty) step log's. */
export function writeStub(dir) {
  const stub = join(dir, 'step-stub.sh');
  writeFileSync(stub, SCRIPT);
  chmodSync(stub, 0o755);
  const log = join(dir, 'steps.log');
  writeFileSync(log, '');
  return { stub, log };
}

/** Wall clock in epoch microseconds, the stub's unit. */
export const nowUs = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

/**
 * The step log as a map: workflow tag → its steps' start times (epoch µs, in order). Tags are
 * "<workflow> <step>" (the stub's first argument).
 */
export function readSteps(log) {
  const byWorkflow = new Map();
  if (!existsSync(log)) return byWorkflow;
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const m = /^(\S+) (\S+) (\d+)$/.exec(line);
    if (!m) continue;
    const list = byWorkflow.get(m[1]) ?? [];
    list.push({ step: m[2], us: Number(m[3]) });
    byWorkflow.set(m[1], list);
  }
  return byWorkflow;
}

/** When the step `step` of `workflow` first started (epoch µs), or null. */
export function stepStarted(log, workflow, step) {
  return (
    readSteps(log)
      .get(workflow)
      ?.find((s) => s.step === step)?.us ?? null
  );
}

/**
 * Per-step latency of each finished workflow: from its first step's start to its last one's,
 * divided by the gaps between them — what one step costs the engine end to end (the step's
 * process included), milliseconds.
 */
export function perStepMs(byWorkflow, steps) {
  const out = [];
  for (const list of byWorkflow.values()) {
    if (list.length < steps) continue;
    const us = list.map((s) => s.us).sort((a, b) => a - b);
    out.push((us.at(-1) - us[0]) / (us.length - 1) / 1000);
  }
  return out;
}
