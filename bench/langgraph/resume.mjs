// P2's new process on the LangGraph side: node resume.mjs <checkpoints.db> <thread_id> <nodes>
// Builds the chain graph (as a program resuming its work would), compiles it with the SQLite
// checkpointer on the file, and resumes the interrupted thread with a person's answer.
// Exit 0 once the thread has run to its end with that answer, 1 otherwise.
import { Command } from '@langchain/langgraph';
import { chainGraph, openSaver, threadConfig } from './graphs.mjs';

const [file, threadId, nodes] = process.argv.slice(2);
const app = chainGraph(Number(nodes)).compile({ checkpointer: openSaver(file) });
const out = await app.invoke(new Command({ resume: { continue: true } }), threadConfig(threadId, Number(nodes)));
if (out.answer?.continue !== true || out.__interrupt__) {
  console.error(`resume.mjs: the thread did not end with the answer: ${JSON.stringify(out).slice(0, 300)}`);
  process.exit(1);
}
