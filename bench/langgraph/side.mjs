// LangGraph.js's side of P1, P2 and P6, the twins of ../shop-side.mjs. Imported by
// ../run.mjs once this folder's own node_modules is installed (see ../peer.mjs).
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeProcess } from '../stats.mjs';
import { chainGraph, loopGraph, openSaver, threadConfig } from './graphs.mjs';

const resumeScript = fileURLToPath(new URL('./resume.mjs', import.meta.url));
const tempFile = (prefix) => join(mkdtempSync(join(tmpdir(), prefix)), 'checkpoints.db');

/** The saver's file size once its WAL is folded in; closes the saver. */
function checkpointedSize(saver, file) {
  saver.db.pragma('wal_checkpoint(TRUNCATE)');
  saver.db.close();
  return statSync(file).size;
}

/**
 * P1 and P6 — the loop graph (one node calling the stub agent, looping `steps` times),
 * compiled with SqliteSaver on a new temp file and invoked on a thread, so every step is
 * checkpointed; the time is invoke()'s, from the input to END (compiling is outside it).
 * The bytes are the checkpoint file's after a WAL checkpoint, divided by the steps.
 */
export async function perStep(steps) {
  const file = tempFile('langgraph-p1-');
  const saver = openSaver(file);
  const app = loopGraph(steps).compile({ checkpointer: saver });
  const started = performance.now();
  const out = await app.invoke({ i: 0 }, threadConfig('p1', steps));
  const ms = performance.now() - started;
  if (out.i !== steps) throw new Error(`the LangGraph P1 loop stopped at step ${out.i} of ${steps}`);
  return { msPerStep: ms / steps, bytesPerStep: checkpointedSize(saver, file) / steps };
}

/** P2's subject: the chain of `nodes` agent nodes invoked once, up to its interrupt(). */
export async function interruptedThread(nodes) {
  const file = tempFile('langgraph-p2-');
  const saver = openSaver(file);
  const out = await chainGraph(nodes).compile({ checkpointer: saver }).invoke({ i: 0 }, threadConfig('p2', nodes));
  if (out.i !== nodes || !out.__interrupt__)
    throw new Error(`the LangGraph P2 chain did not reach its interrupt (step ${out.i})`);
  checkpointedSize(saver, file);
  return { file, threadId: 'p2', nodes };
}

/**
 * P2 — resume as a new process, wall-clock: `node resume.mjs` loads LangGraph, builds and
 * compiles the same chain, and resumes the thread with `new Command({ resume })` from its
 * last checkpoint in the SQLite file, to the end. Resuming ends the thread, so each sample
 * resumes a fresh copy of the interrupted file (copied outside the time).
 */
export function resumeProcess({ file, threadId, nodes }) {
  const copy = tempFile('langgraph-p2-resume-');
  copyFileSync(file, copy);
  return timeProcess([process.execPath, resumeScript, copy, threadId, String(nodes)]);
}
