import {
  ConflictError,
  UsageError,
  detailJson,
  holdIsLive,
  parseCallRef,
  quoted,
  runActions,
  shopHostname,
  waitingOnWords,
} from '@shop/core';
import type { Execution, Run } from '@shop/core';
import { limitArg, runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import { agentColumn, answerHint, describeWaiting, firstLine } from '../output.js';
import type { CommandArgs } from '../registry.js';
import { table, usd } from '../table.js';
import { localTime, localTimeAgo } from '../time.js';
import { paint, statusColour } from '../style.js';
import { elapsed } from '../live-board.js';
import { claimedLine } from '../claim-text.js';
import { sessionLines } from '../session-lines.js';
import { heldLines, rulesLines } from '../rules-lines.js';

/** "   by ann (cli)", "   by schedule nightly": who or what started it, when it was not a person on this CLI. */
function startedBy(run: Run): string {
  const t = run.trigger;
  if (!t || (t.kind === 'cli' && !t.name)) return '';
  return `   by ${t.kind}${t.name ? ` ${t.name}` : ''}${t.by ? ` (${t.by})` : ''}`;
}

/** shop status <id> [--limit N] [--json] */
export default async function status(args: CommandArgs<'status'>, ctx: Context): Promise<number> {
  const id = runIdArg(args, 'shop status <id> [--limit N] [--json]');
  const limit = limitArg(args.values, 'calls');
  const ops = await ctx.ops();
  const view = await ops.runView(id, { last: limit || undefined });
  const { run, executions, waiting, waitingAll, cost } = view;
  const json = detailJson(view);
  if (args.values.json) {
    printJson(ctx.out, json);
    return 0;
  }
  if (args.values.aah) {
    if (!waiting)
      throw new ConflictError(
        `run ${id} has no pending ask (it is ${json.status}); --aah prints one as an AAH decision/request`,
      );
    const call = args.values.call;
    const ref = call === undefined ? null : parseCallRef(call);
    if (call !== undefined && !ref)
      throw new UsageError(
        `--call ${quoted(call)} is not a call key (such as 4, 4/1/2, or 4.2 for the call's second ask; see shop inbox)`,
      );
    // --call K: the call's current ask (the request printed is the one open now); K.N: exactly ask N.
    const { exec } = await ops.pickAsk(
      { runId: id, key: ref?.key ?? null, ask: call?.includes('.') ? ref!.ask : null },
      'status --aah',
      (v) => {
        const list = v.waitingAll.map((e) => `${e.key} (${e.agent}: ${e.waitingFor})`).join('; ');
        return new UsageError(
          `run ${id} waits on several calls: ${list}; pick one with: shop status ${id} --aah --call <key>`,
        );
      },
    );
    const { aahRequest } = await import('../aah-json.js');
    printJson(ctx.out, aahRequest(run, exec));
    return 0;
  }
  ctx.out(
    `Run ${run.id}: ${paint(ctx.style.color, statusColour(json.status), json.status)}   (${run.spec}${run.prompt ? `: ${firstLine(run.prompt)}` : ''})`,
  );
  ctx.out(`Workspace: ${run.workspace}${run.branch ? ` (branch ${run.branch})` : ''}`);
  ctx.out(`Cost: ${usd(cost)}   Started: ${localTimeAgo(run.createdAt)}${startedBy(run)}`);
  if (run.status === 'queued') {
    const how = [
      `priority ${run.priority}`,
      run.queueKey ? `key ${run.queueKey}` : '',
      run.concurrency
        ? `at most ${run.concurrency} of ${run.spec}${run.queueKey ? ` (${run.queueKey})` : ''} at once`
        : '',
    ];
    ctx.out(
      `Queued: ${how.filter(Boolean).join(', ')}; a worker (shop watch) takes it when it has room — or: shop stop ${run.id}`,
    );
  }
  for (const line of sessionLines(json.sessions)) ctx.out(line);
  if (run.reason) ctx.out(`Reason: ${run.reason}`);
  if (run.status === 'completed' && run.result != null) ctx.out(`Result: ${JSON.stringify(run.result)}`);
  for (const exec of waitingAll) {
    ctx.out('');
    ctx.out(describeWaiting(run.id, exec, waitingAll.length > 1));
    if (exec.sessionId) ctx.out(`Session: ${exec.sessionId}`);
    ctx.out(`Waiting since: ${localTimeAgo(exec.updatedAt)}`);
    if (exec.claim) ctx.out(claimedLine(exec.claim));
    // Answers wait for a person in the session (refused meanwhile): say who, where, since when.
    if (exec.hold?.kind === 'continue' && holdIsLive(ops.liveness, exec.hold))
      ctx.out(
        `In its session: ${exec.hold.by} (shop continue, process ${exec.hold.pid}${exec.hold.host === shopHostname() ? '' : ` on ${exec.hold.host}`}) since ${localTimeAgo(exec.hold.since)}`,
      );
    for (const line of answerHint(exec)) ctx.out(line);
  }
  // Waiting on the world (time, an event, another run): no person is asked; a worker goes on when it comes.
  if (json.waiting_on.length) {
    ctx.out('');
    ctx.out(
      `Waiting on: ${json.waiting_for} — no person is needed; shop watch resumes it then (or: shop resume ${run.id} --wait)`,
    );
  }
  // Runs calling runs: the link both ways (a child's ask is answered by its own handle).
  if (run.parentId !== null) ctx.out(`Parent: run ${run.parentId} (its call ${run.parentKey ?? '?'} started this run)`);
  if (json.children.length)
    ctx.out(`Children: ${json.children.map((c) => `run ${c.id} (${c.spec}) ${c.status}`).join(', ')}`);
  if (json.driver_gone_since) ctx.out(`Driver gone since: ${localTimeAgo(Date.parse(json.driver_gone_since))}`);
  for (const line of heldLines(run.id, json.held)) ctx.out(line);
  const resume = runActions(json).find((a) => a.verb === 'resume');
  if (!waiting && !json.held && resume) ctx.out(`Pick it up with: shop resume ${resume.handle}`);
  const rules = rulesLines(run.id, json.rules);
  if (rules.length) ctx.out('');
  for (const line of rules) ctx.out(line);
  if (executions.length) {
    ctx.out('');
    const earlier = view.calls - executions.length;
    if (earlier > 0)
      ctx.out(`… ${earlier} earlier ${earlier === 1 ? 'call' : 'calls'} (shop status ${run.id} --limit 0 for all)`);
    // The held step's agent has ended: its call stays running only so a resume completes it from its report.
    const held = (e: Execution) => e.status === 'running' && json.held?.key === e.key;
    const rows = executions.map((e) => [
      `#${e.key}`,
      agentColumn(e.agent, e.kind),
      held(e) ? 'held' : e.status === 'running' && json.driver_gone_since ? 'interrupted' : e.status,
      e.costUsd != null ? usd(e.costUsd) : '-',
      firstLine(
        held(e)
          ? 'ended; what it reported is kept for the resume'
          : e.status === 'running'
            ? runningText(e, json.driver_gone_since)
            : (e.error ??
              e.waitingFor ??
              (e.status === 'waiting' ? waitingOnWords([e]) : null) ??
              callResultWords(e.result) ??
              ''),
      ),
    ]);
    const style = (col: number, text: string) => (col === 2 ? paint(ctx.style.color, statusColour(text), text) : text);
    for (const line of table(['CALL', 'AGENT', 'STATUS', 'COST', 'DETAIL'], rows, {
      width: ctx.style.width,
      shrink: [4],
      style,
    }))
      ctx.out(line);
  }
  return 0;
}

/**
 * A call at work: its latest activity (a parallel: its branches) and how long this attempt has
 * run. With its driver gone nothing works on it: no clock, but since when.
 */
function runningText(e: Execution, goneSince: string | null): string {
  if (goneSince)
    return `driver gone since ${localTime(Date.parse(goneSince))}${e.activity ? ` (last: ${e.activity})` : ''}`;
  const since = e.attemptAt ?? e.startedAt;
  const branches = e.kind === 'parallel' ? (e.request as { branches?: number } | null)?.branches : undefined;
  const what = branches ? `waiting for its ${branches} branches` : (e.activity ?? 'working');
  return `${what} (${elapsed(Date.now() - since)})`;
}

/** What a call ended with, in words: an agent's "STATUS: summary", a pause's CONTINUE or STOP, else its JSON. */
function callResultWords(result: unknown): string | null {
  if (result && typeof result === 'object') {
    const r = result as Record<string, unknown>;
    if (typeof r.status === 'string') return `${r.status}${r.summary ? `: ${r.summary}` : ''}`;
    if ('continue' in r) return r.continue ? 'CONTINUE' : `STOP: ${r.reason ?? ''}`;
  }
  return result == null ? null : JSON.stringify(result);
}
