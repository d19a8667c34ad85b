import { describe, it, type ExpectStatic } from 'vitest';
import { LogJsonSchema, RunDetailJsonSchema, RunJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, type Project } from './harness.js';

/**
 * The verdict matrix, end to end through the binary: for every `awaiting` kind, what
 * `shop approve` / `shop reject` / `shop answer` do to an agent's NEEDS_HUMAN. Written out
 * here, not imported, so a change to the matrix in the source has to show up in this table.
 */
type Kind = 'input' | 'approval' | 'review' | 'content' | 'escalation' | 'checkpoint' | 'work';
type Effect = { close: string } | 'back' | 'refused';
const MATRIX: Record<Kind, { approve: Effect; reject: Effect }> = {
  input: { approve: 'back', reject: { close: 'REJECTED' } },
  approval: { approve: { close: 'APPROVED' }, reject: 'back' },
  review: { approve: { close: 'APPROVED' }, reject: 'back' },
  content: { approve: { close: 'APPROVED' }, reject: 'back' },
  escalation: { approve: 'back', reject: { close: 'WONT_DO' } },
  checkpoint: { approve: 'back', reject: 'back' },
  work: { approve: { close: 'DONE' }, reject: 'refused' },
};
const KINDS = Object.keys(MATRIX) as Kind[];

const WORKFLOW =
  'function workflow(p) local r = run("coder", "task") return r.status .. "|" .. (r.summary or "") end\n';

/** One project per kind (its runs are independent): the coder asks (typed `kind`) on its first invocation of a run, then reports DONE "reworked". */
const projects = new Map<Kind, Project>();
function projectFor(kind: Kind): Project {
  let p = projects.get(kind);
  if (!p) {
    p = makeProject();
    p.write('workflows/verdict.lua', WORKFLOW);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: `Question about ${kind}?`, awaiting: kind },
          { status: 'DONE', summary: 'reworked' },
        ],
      },
    });
    projects.set(kind, p);
  }
  return p;
}

const statusOf = async (p: Project, id: number) =>
  RunDetailJsonSchema.parse(JSON.parse((await p.shopAsync(['status', String(id), '--json'])).stdout));
const logOf = async (p: Project, id: number) =>
  LogJsonSchema.parse(JSON.parse((await p.shopAsync(['log', String(id), '--json'])).stdout));
const answersOf = async (p: Project, id: number) =>
  (await logOf(p, id)).events.filter((e) => e.type === 'human_answered');
const coderCalls = (p: Project, id: number) =>
  p.invocations().filter((i) => i.mode === 'print' && i.run === String(id));

type Expect = ExpectStatic;

/**
 * `shop run verdict` up to the coder's typed ask; returns the run id. `show` also checks
 * the kind where a person looks for it: `status --json` (run and pending ask) or `list --json`.
 */
async function suspended(p: Project, kind: Kind, expect: Expect, show?: 'status' | 'list'): Promise<number> {
  const r = await p.shopAsync(['run', 'verdict']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  const id = runId(r);
  expect(r.stdout).toContain(`run ${id} is waiting for a person (${kind}): coder asks: Question about ${kind}?`);
  if (show === 'status') {
    const s = await statusOf(p, id);
    expect(s).toMatchObject({
      status: 'waiting_human',
      awaiting: kind,
      agent: 'coder',
      waiting_for: `Question about ${kind}?`,
    });
    expect(s.pending).toMatchObject({ key: '1', kind: 'run', awaiting: kind, ask: 1 });
  } else if (show === 'list') {
    const listed = RunJsonSchema.array()
      .parse(JSON.parse((await p.shopAsync(['list', '--json'])).stdout))
      .find((r) => r.id === id);
    expect(listed).toMatchObject({
      status: 'waiting_human',
      awaiting: kind,
      agent: 'coder',
      waiting_for: `Question about ${kind}?`,
    });
  }
  return id;
}

/** After an answer that goes back: the coder's own session resumed with the person's words, then DONE. */
function expectSentBack(
  p: Project,
  id: number,
  words: string,
  r: { code: number | null; stdout: string; stderr: string },
  expect: Expect,
) {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: "DONE|reworked"`);
  const calls = coderCalls(p, id);
  expect(calls).toHaveLength(2);
  expect(calls[0]).toMatchObject({ resumed: false, prompt: 'task' });
  expect(calls[1]).toMatchObject({ resumed: true, session_id: calls[0].session_id, call: '1' });
  expect(calls[1].prompt).toContain(words);
}

/** Answers refused (exit 2, one line, nothing recorded) before the `shop answer` that works, per kind. */
const needsWords = (kind: Kind) => (id: number) =>
  `shop: coder awaits ${kind} ("Question about ${kind}?"): give the words it needs, e.g. shop answer ${id}.1 "…"`;
const REFUSED_FIRST: Partial<
  Record<Kind, { what: string; args: (id: number) => string[]; line: (id: number) => string }[]>
> = {
  input: [{ what: 'approve without a message', args: (id) => ['approve', `${id}.1`], line: needsWords('input') }],
  escalation: [
    { what: 'approve without a message', args: (id) => ['approve', `${id}.1`], line: needsWords('escalation') },
  ],
  approval: [
    { what: 'answer without text', args: (id) => ['answer', `${id}.1`], line: needsWords('approval') },
    {
      what: 'approve with words but no --message',
      args: (id) => ['approve', `${id}.1`, 'ship', 'it'],
      line: () =>
        'shop: unexpected argument "ship it" (shop approve); give your words with --message "ship it"; usage: shop approve <id | handle> [--message M | --message-file F] [--call K] [--by NAME] [--yes] [--json]',
    },
  ],
};

describe.concurrent('the verdict matrix, through the binary', () => {
  for (const kind of KINDS) {
    for (const verdict of ['approve', 'reject'] as const) {
      const effect = MATRIX[kind][verdict];
      const what =
        effect === 'back'
          ? 'goes back to the agent'
          : effect === 'refused'
            ? 'is refused (exit 2)'
            : `closes with ${effect.close}`;
      it(`${kind} + ${verdict} ${what}`, async ({ expect }) => {
        const p = projectFor(kind);
        const id = await suspended(p, kind, expect, verdict === 'approve' ? 'list' : 'status');
        const words = `${verdict} words for ${kind}`;
        const args = verdict === 'approve' ? ['approve', `${id}.1`, '--message', words] : ['reject', `${id}.1`, words];
        const before = effect === 'refused' ? await statusOf(p, id) : null;
        const r = await p.shopAsync(args);

        if (effect === 'refused') {
          expect(r.code).toBe(2);
          expect(r.stdout).toBe('');
          expect(lines(r.stderr)).toEqual([
            'shop: call 1 awaits work: a work hand-off is done by the person: approve it when the work is done, or hand it back with shop answer',
          ]);
          const after = await statusOf(p, id);
          expect(after.status).toBe('waiting_human');
          expect(after.pending).toEqual(before!.pending);
          expect(await answersOf(p, id)).toEqual([]);
          expect(coderCalls(p, id)).toHaveLength(1);
          return;
        }
        const recorded = verdict === 'approve' ? 'approved' : 'rejected';
        expect(lines(r.stdout)[0], r.stderr).toBe(`run ${id} call 1 (${id}.1): answered ${recorded} by tester`);
        const log = await logOf(p, id);
        expect(log.events.filter((e) => e.type === 'human_answered')).toEqual([
          expect.objectContaining({
            key: '1',
            actor: 'tester',
            channel: 'cli',
            data: expect.objectContaining({ ask: 1, verdict: recorded, message: words }),
          }),
        ]);
        if (effect === 'back') {
          expectSentBack(p, id, words, r, expect);
          expect(log.events.find((e) => e.type === 'sent_back')?.data?.prompt).toContain(words);
        } else {
          expect(r.stderr).toBe('');
          expect(r.code).toBe(0);
          expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: "${effect.close}|${words}"`);
          expect(coderCalls(p, id)).toHaveLength(1);
          expect(log.events.some((e) => e.type === 'sent_back')).toBe(false);
          expect(log.executions[0].result).toMatchObject({
            status: effect.close,
            summary: words,
            responder: 'tester',
            awaiting: kind,
          });
        }
      });
    }
    const refusals = REFUSED_FIRST[kind] ?? [];
    it(`${kind} + shop answer goes back to the agent${refusals.length ? ` (after refusing: ${refusals.map((f) => f.what).join('; ')})` : ''}`, async ({
      expect,
    }) => {
      const p = projectFor(kind);
      const id = await suspended(p, kind, expect);
      for (const { args, line } of refusals) {
        const r = await p.shopAsync(args(id));
        expect({ code: r.code, stdout: r.stdout, stderr: lines(r.stderr) }).toEqual({
          code: 2,
          stdout: '',
          stderr: [line(id)],
        });
      }
      if (refusals.length) {
        expect((await statusOf(p, id)).pending).toMatchObject({ ask: 1, awaiting: kind });
        expect(await answersOf(p, id)).toEqual([]);
      }
      const r = await p.shopAsync(['answer', `${id}.1`, 'use', 'the', 'blue', 'one']);
      expect(lines(r.stdout)[0]).toBe(`run ${id} call 1 (${id}.1): answered by tester: use the blue one`);
      expectSentBack(p, id, 'use the blue one', r, expect);
    });
  }
});

describe.concurrent('a verdict without words', () => {
  it('checkpoint + approve without a message still goes back, with the matrix lead alone', async ({ expect }) => {
    const p = projectFor('checkpoint');
    const id = await suspended(p, 'checkpoint', expect);
    // A bare run id off a terminal answers the one open ask and says which.
    const r = await p.shopAsync(['approve', String(id)]);
    expect(lines(r.stdout).slice(0, 2)).toEqual([
      `run ${id} call 1 (${id}.1): answered approved by tester`,
      `  (run ${id}'s one open ask: ${id}.1 — coder asks (checkpoint): Question about checkpoint?)`,
    ]);
    expectSentBack(p, id, 'The person approved this checkpoint: go on with the next phase.', r, expect);
  });
});
