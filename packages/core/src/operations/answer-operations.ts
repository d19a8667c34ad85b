/**
 * What answering imports on first use: picking the ask, recording the answer, and resuming the
 * run after it. Apart from engine-operations.ts because an answer handed to a live driver (a
 * worker holding the run) needs no Lua VM: `shop approve` starts faster without one.
 * resumeAfterAnswer loads the engine itself when it drives the run here.
 */
export { resumeAfterAnswer } from './answer.js';
export { answerAsk, answerPicked } from './answer-ask.js';
export { pickAskRef } from './pick-ask.js';
