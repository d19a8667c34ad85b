import {
  ConflictError,
  ShopError,
  UsageError,
  buildAnswer,
  callDecisions,
  cliDialect,
  handleOf,
  mayAct,
} from '@shop/core';
import type { AnswerInput, Execution, Run, Verdict } from '@shop/core';
import type { Browser, ConfirmOverlay } from '../app/use-browser.js';
import type { AttachedCommand, TuiDeps } from '../deps.js';
import { askerName } from '../format/run-row.js';
import { oneLine } from '../format/time.js';
import type { Status } from '../hooks/use-status.js';
import type { Command } from '../keys/bindings.js';
import { answerCall, sessionAnswer } from './answers.js';
import { agentCliCommand, editorCommand } from './commands.js';
import { waitingCall, type Target } from './targets.js';
import { toggleClaim } from './claims.js';

type HandOver = <T>(job: () => Promise<T>) => Promise<T>;

/**
 * A problem the person can fix shows where they typed, in core's words alone: the keys on
 * screen are the TUI's actions (no `shop …` line). Anything else is the app's own error.
 */
function problem(check: () => unknown): string | null {
  try {
    check();
    return null;
  } catch (e) {
    if (e instanceof ShopError) return e.message;
    throw e;
  }
}

/**
 * The actions, through the core operations. Each failure lands in the status line; the
 * app goes on. Answers are checked before anything is recorded, and shown where typed.
 */
export function useActions(deps: TuiDeps, status: Status, browser: Browser, handOver: HandOver) {
  const { ops } = deps;
  const run = (work: Promise<string | void>) =>
    work.then((text) => void (text && status.say(text, 'success')), status.fail);

  /** The last step of every action on a run: it acts only on a y after a pause (ConfirmAction). */
  const confirm = (c: Omit<ConfirmOverlay, 'kind' | 'act'>, title: string, act: () => Promise<string | void>) => {
    browser.setOverlay({
      kind: 'confirm',
      ...c,
      act() {
        browser.setOverlay(null);
        status.say(`${title}…`);
        void run(act());
      },
    });
  };

  /** A line typed in for an action, checked, then confirmed; `question(text)` says what it will do. */
  const ask = (
    title: string,
    label: string,
    check: (text: string) => unknown,
    question: (text: string) => Omit<ConfirmOverlay, 'kind' | 'act'>,
    act: (text: string) => Promise<string>,
  ) => {
    browser.setOverlay({
      kind: 'prompt',
      title,
      label,
      submit(text) {
        const error = problem(() => check(text));
        if (error) return error;
        confirm(question(text), title, () => act(text));
        return null;
      },
    });
  };

  const answerPrompt = (exec: Execution, verdict: Verdict) => {
    const needsWords = problem(() => buildAnswer(exec, { verdict, message: null })) !== null;
    const words = verdict === 'approved' ? 'Message' : 'Feedback';
    const label = `${words} (${needsWords ? 'required' : 'optional'})`;
    // The ask's handle: the answer goes to this ask (the one on screen), never to a newer one.
    const title = `${verdict === 'approved' ? 'Approve' : 'Reject'} ask ${handleOf(exec)} — ${askerName(exec)} asks: ${oneLine(exec.waitingFor)}`;
    const question = (text: string) => ({
      title,
      lines: [`${words}: ${oneLine(text) || '(none)'}`],
      verb: verdict === 'approved' ? 'approve it' : 'reject it',
      cancelled: `nothing sent: ask ${handleOf(exec)} still waits`,
    });
    ask(
      title,
      label,
      (text) => buildAnswer(exec, { verdict, message: text }),
      question,
      (text) => answerCall(deps, exec, { verdict, message: text }),
    );
  };

  const attached = async (cmd: AttachedCommand, title: string, lines: string[]) => {
    browser.setOverlay({ kind: 'handoff', title, lines });
    try {
      const result = await handOver(() => deps.runAttached(cmd));
      if (result.error) throw new UsageError(`could not open ${cmd.command}: ${result.error}`);
      return result.code;
    } finally {
      browser.setOverlay(null);
    }
  };

  const openSession = async (r: Run, exec: Execution) => {
    // One process per session: held in the store while the person is in it (answers wait for it).
    const session = await ops.openSession(r, exec, deps.responder, 'answer it with A or R');
    const cmd = agentCliCommand(deps.env, session);
    const { short: name, label: install } = cliDialect(session.cli);
    const opens = session.cli === 'claude' ? 'The Claude Code TUI' : install;
    const binVar = `SHOP_${session.cli.toUpperCase()}_BIN`;
    try {
      await attached(cmd, `Continue run ${r.id}`, [
        `Opening ${name} session for: ${exec.agent}`,
        `Reason: ${oneLine(exec.waitingFor)}`,
        '',
        `${opens} will open in this terminal.`,
        `When done, exit ${name} to return to Shop.`,
      ]).catch((e: unknown) => {
        throw e instanceof UsageError && !deps.env[binVar]
          ? new UsageError(`${e.message} (install ${install} or set ${binVar})`)
          : e;
      });
    } finally {
      await session.release();
    }
    const { text, answered } = await sessionAnswer(deps, exec, session);
    status.say(text, answered ? 'success' : 'info');
  };

  const perform = async (command: Command, target: Target): Promise<string | void> => {
    if (command === 'stop' || command === 'editor') {
      const r = await ops.run(target.runId);
      if (!r) throw new ConflictError(`run ${target.runId} is gone`);
      if (command === 'editor') {
        const cmd = editorCommand(deps.env, r);
        const code = await attached(cmd, `Open run ${r.id}'s workspace`, [
          `${cmd.command} ${cmd.args.join(' ')}`,
          'Shop comes back when the editor exits.',
        ]);
        return `back from ${cmd.command}${code ? ` (exit ${code})` : ''}`;
      }
      if (!mayAct({ id: r.id, status: r.status }, 'stop'))
        throw new ConflictError(`run ${r.id} has already ended (${r.status})`);
      const question = (text: string) => ({
        title: `Stop run ${r.id} (${r.spec}: ${oneLine(r.prompt)})?`,
        lines: [`Reason: ${oneLine(text) || `(none: "stopped by ${deps.responder}")`}`],
        verb: 'stop it',
        cancelled: `run ${r.id} not stopped`,
      });
      return ask(
        `Stop run ${r.id}`,
        'Reason',
        () => null,
        question,
        async (text) => {
          const { run: ended } = await ops.stop(r.id, text.trim() || `stopped by ${deps.responder}`, deps.responder);
          return ended.status === 'stuck'
            ? `run ${r.id} stopped: stuck — ${ended.reason ?? ''}`
            : `run ${r.id} ended ${ended.status} before the stop took effect`;
        },
      );
    }
    if (command === 'claim') return toggleClaim(deps, target);
    const { run: r, exec } = await waitingCall(ops, target);
    const decisions = exec.kind === 'pause' ? callDecisions(exec) : [];
    if (command === 'continue' && exec.kind !== 'pause') return openSession(r, exec);
    if (command === 'continue' || (command === 'approve' && decisions.length))
      return browser.setOverlay({ kind: 'form', run: r, exec, approving: command === 'approve' });
    if (command === 'approve' || command === 'reject')
      return answerPrompt(exec, command === 'approve' ? 'approved' : 'rejected');
  };

  /** n: a workflow, then its prompt, then a confirmation; the run is queued for the workers. */
  const start = async (): Promise<void> => {
    const names = ops.workflows();
    if (!names.length) throw new UsageError('no workflows in workflows/ to start');
    browser.setOverlay({
      kind: 'prompt',
      title: 'Start a run',
      label: `Workflow (${names.join(', ')})`,
      submit(name) {
        if (!names.includes(name.trim())) return `no workflow "${oneLine(name)}": one of ${names.join(', ')}`;
        promptFor(name.trim());
        return null;
      },
    });
  };
  const promptFor = (workflow: string) =>
    ask(
      `Start a run of ${workflow}`,
      'Prompt',
      () => null,
      (text) => ({
        title: `Queue a run of ${workflow} for the workers?`,
        lines: [`Prompt: ${oneLine(text) || '(none)'}`],
        verb: 'queue it',
        cancelled: 'nothing started',
      }),
      async (text) => {
        const { run: queued, liveWorkers } = await ops.queue({
          workflow,
          prompt: text,
          trigger: { kind: 'cli', name: 'tui', by: deps.responder, data: null },
          actor: deps.responder,
        });
        return `run ${queued.id} queued (${queued.spec}); ${liveWorkers ? 'a worker starts it when one has room' : 'no worker is watching: start one with shop watch'}`;
      },
    );

  return {
    /** n: start a run (a workflow and its prompt), queued for the workers. */
    start: (): Promise<void> => run(start()),
    /** Settles once the action has done what it does at once (opened its prompt or form, or failed). */
    perform: (command: Command, target: Target): Promise<void> => run(perform(command, target)),
    /** A form's answers, already checked: confirmed, recorded, then the run resumes. */
    submit(exec: Execution, input: AnswerInput) {
      const question = {
        title: `Send this answer to ask ${handleOf(exec)} — ${askerName(exec)} asks: ${oneLine(exec.waitingFor)}`,
        lines: answerLines(input),
        verb: 'send it',
        cancelled: `nothing sent: ask ${handleOf(exec)} still waits`,
      };
      confirm(question, `answering ask ${handleOf(exec)}`, () => answerCall(deps, exec, input));
    },
  };
}

/** A form's answer as the confirmation shows it: each decision's value, the verdict, the note. */
function answerLines(input: AnswerInput): string[] {
  const lines: string[] = [];
  if (input.verdict) lines.push(input.verdict === 'approved' ? 'Continue' : 'Stop');
  for (const [id, value] of Object.entries((input.answers ?? {}) as Record<string, unknown>))
    lines.push(`${id}: ${oneLine(JSON.stringify(value))}`);
  if (input.message) lines.push(`Note: ${oneLine(input.message)}`);
  return lines;
}
