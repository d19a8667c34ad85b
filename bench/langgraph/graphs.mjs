// The LangGraph.js graphs of the benchmark, shared by side.mjs (this process) and resume.mjs
// (a new process that must build the same graph to resume it). Idiomatic LangGraph: a
// StateGraph over an Annotation.Root state, checkpointed by the SQLite saver to a file.
import { Annotation, END, START, StateGraph, interrupt } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';

/**
 * The state: the step counter and the agent's last report. Both are last-value channels,
 * so a checkpoint holds the state at its step and the history (one checkpoint per step,
 * and each node's writes) is the audit trail — as Shop's log keeps every call's result.
 */
const State = Annotation.Root({
  i: Annotation(),
  report: Annotation(),
  answer: Annotation(),
});

/** The stub agent, the twin of Shop's: in-process, reports DONE at once (with its prompt, which Shop's log keeps too). */
const stubAgent = async (prompt) => ({ status: 'DONE', summary: 'ok', prompt });

/** One node that calls the agent and loops back to itself (a conditional edge) `steps` times. */
export function loopGraph(steps) {
  return new StateGraph(State)
    .addNode('worker', async (s) => ({ i: s.i + 1, report: await stubAgent(`step ${s.i + 1}`) }))
    .addEdge(START, 'worker')
    .addConditionalEdges('worker', (s) => (s.i < steps ? 'worker' : END));
}

/** `nodes` distinct agent nodes in a chain, then a node that waits for a person (interrupt()). */
export function chainGraph(nodes) {
  let graph = new StateGraph(State);
  for (let k = 1; k <= nodes; k++)
    graph = graph.addNode(`step${k}`, async (s) => ({ i: s.i + 1, report: await stubAgent(`step ${k}`) }));
  graph = graph.addNode('pause', () => ({ answer: interrupt('end of bench') }));
  graph = graph.addEdge(START, 'step1');
  for (let k = 1; k < nodes; k++) graph = graph.addEdge(`step${k}`, `step${k + 1}`);
  return graph.addEdge(`step${nodes}`, 'pause').addEdge('pause', END);
}

/**
 * The SQLite checkpointer on `file`. It turns WAL on itself; synchronous = NORMAL is set as
 * Shop sets it on its store, so both sides pay the same durability per write (stock
 * SqliteSaver keeps SQLite's FULL, an fsync per commit, and is slower for it).
 */
export function openSaver(file) {
  const saver = SqliteSaver.fromConnString(file);
  saver.setup();
  saver.db.pragma('synchronous = NORMAL');
  return saver;
}

/** Every step of a run is a superstep: the default limit (25) would stop a long one. */
export const threadConfig = (threadId, steps) => ({
  configurable: { thread_id: threadId },
  recursionLimit: steps + 10,
});
