import { describe, expect, it } from 'vitest';
import { LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, type Project } from './harness.js';

/** pause{message, decisions} answered by --answers, files, AAH artifacts, approve/reject and shop continue. */
const LAUNCH = `function workflow(p)
  local r = pause{message = "Launch?", decisions = {
    { id = "d1", type = "approval", prompt = "Approve budget?" },
    { id = "d2", type = "choice", prompt = "When?", options = { "now", "later" }, default = "later" },
    { id = "d3", type = "number", prompt = "Budget", constraints = { min = 1, max = 100 } },
    { id = "d4", type = "text", prompt = "Code name", required = false, constraints = { pattern = "^[a-z]+$" } },
    { id = "d5", type = "multi_choice", prompt = "Platforms", options = { "web", "ios", "android" }, constraints = { min = 1 } },
    { id = "d6", type = "date", prompt = "Launch date", required = false },
  }}
  return { answers = r.answers, comments = r.comments, overall = r.overall_status, responder = r.responder, cont = r.continue, message = r.message }
end
`;
const TWO_APPROVALS = `function workflow(p)
  local r = pause{message = "Ship both?", decisions = { { id = "api", type = "approval", prompt = "API?" }, { id = "ui", type = "approval", prompt = "UI?" } }}
  return { overall = r.overall_status, cont = r.continue, answers = r.answers }
end
`;

let shared: Project | null = null;
/** One project for the whole file; each test starts its own run. */
function project(): Project {
  if (!shared) {
    shared = makeProject();
    shared.write('workflows/launch.lua', LAUNCH);
    shared.write('workflows/two.lua', TWO_APPROVALS);
  }
  return shared;
}

function paused(p: Project, spec = 'launch'): number {
  const r = p.shop(['run', spec]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  return runId(r);
}

const humanAnswers = (p: Project, id: number) =>
  LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout)).events.filter(
    (e) => e.type === 'human_answered',
  );
const result = (p: Project, id: number) => p.status(id).result as Record<string, unknown>;

const VALID = { d1: { value: true, comment: 'finance agreed' }, d3: 42, d5: ['web', 'ios'], d6: '2026-03-01' };

describe('a structured pause', () => {
  it('one valid --answers payload: answers keyed by id, defaults filled, comments, overall_status, responder', () => {
    const p = project();
    const id = paused(p);
    const r = p.shop(['signal', `${id}.1`, '--answers', JSON.stringify(VALID), '--by', 'erin']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)[0]).toBe(
      `run ${id} call 1 (${id}.1): answered decisions {"d1":true,"d2":"later","d3":42,"d4":null,"d5":["web","ios"],"d6":"2026-03-01"} by erin`,
    );
    // d4 (optional, unanswered) is nil in Lua, so absent from the returned table.
    expect(result(p, id)).toEqual({
      answers: { d1: true, d2: 'later', d3: 42, d5: ['web', 'ios'], d6: '2026-03-01' },
      comments: { d1: 'finance agreed' },
      overall: 'all_approved',
      responder: 'erin',
      cont: true,
    });
    expect(humanAnswers(p, id)).toEqual([expect.objectContaining({ actor: 'erin', channel: 'signal' })]);
  });

  it('invalid payloads: exit 2, one line naming the decision and the rule, nothing recorded', async () => {
    const p = project();
    const id = paused(p);
    const base = { d1: true, d3: 5, d5: ['web'] };
    const bad: [string, string | RegExp][] = [
      [JSON.stringify({ ...base, d3: 101 }), 'invalid answers, nothing recorded: d3: must be ≤ 100'],
      [JSON.stringify({ ...base, d2: 'soon' }), 'invalid answers, nothing recorded: d2: must be one of now, later'],
      [
        JSON.stringify({ d3: 5, d5: ['web'] }),
        'invalid answers, nothing recorded: d1: required (approval: Approve budget?)',
      ],
      [
        JSON.stringify({ ...base, d9: 1 }),
        'invalid answers, nothing recorded: d9: no such decision (decisions: d1, d2, d3, d4, d5, d6)',
      ],
      [JSON.stringify({ ...base, d4: 'Apollo' }), 'invalid answers, nothing recorded: d4: must match /^[a-z]+$/'],
      [
        JSON.stringify({ ...base, d5: ['web', 'tv'] }),
        'invalid answers, nothing recorded: d5: must be a list drawn from web, ios, android',
      ],
      [JSON.stringify({ ...base, d5: [] }), 'invalid answers, nothing recorded: d5: choose at least 1'],
      [
        JSON.stringify({ ...base, d6: 'next tuesday' }),
        'invalid answers, nothing recorded: d6: must be an ISO 8601 date (YYYY-MM-DD or a date-time)',
      ],
      [
        JSON.stringify([true, 5]),
        'invalid answers, nothing recorded: answers must be a JSON object keyed by decision id, e.g. {"d1": true}',
      ],
      ['{"d1": true,', /^--answers is not valid JSON \(.+\)$/],
    ];
    const before = p.status(id).pending;
    // Nothing is recorded, so the refusals can race each other.
    const results = await Promise.all(
      bad.map(([payload]) => p.shopAsync(['signal', String(id), '--answers', payload])),
    );
    for (const [i, [payload, why]] of bad.entries()) {
      const r = results[i];
      const line =
        typeof why === 'string' ? `shop: ${why}` : expect.stringMatching(new RegExp(`^shop: ${why.source.slice(1)}`));
      expect({ payload, code: r.code, stdout: r.stdout, stderr: lines(r.stderr) }).toEqual({
        payload,
        code: 2,
        stdout: '',
        stderr: [line],
      });
    }
    expect(humanAnswers(p, id)).toEqual([]);
    const s = p.status(id);
    expect(s.status).toBe('waiting_human');
    expect(s.pending).toEqual(before);
    // Still open: a valid answer is taken.
    expect(p.shop(['signal', String(id), '--answers', JSON.stringify(base)]).code).toBe(0);
  });

  it('--answers-file reads the same JSON from a file', () => {
    const p = project();
    const id = paused(p);
    const missing = p.shop(['signal', String(id), '--answers-file', 'nope.json']);
    expect(missing.code).toBe(2);
    expect(lines(missing.stderr)).toEqual(['shop: --answers-file "nope.json": cannot read the file']);
    p.write('answers.json', JSON.stringify({ ...VALID, d2: { value: 'now', comment: 'before the holidays' } }));
    const r = p.shop(['signal', String(id), '--answers-file', 'answers.json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(result(p, id)).toMatchObject({
      answers: { d2: 'now', d3: 42 },
      comments: { d1: 'finance agreed', d2: 'before the holidays' },
      responder: 'tester',
    });
  });

  it('status --aah prints the ask as a decision/request; --response-file answers it (a wrong request_id is refused)', () => {
    const p = project();
    const id = paused(p);
    const aah = p.shop(['status', String(id), '--aah']);
    expect(aah.code).toBe(0);
    const req = JSON.parse(aah.stdout);
    expect(req.artifact).toMatchObject({
      type: 'decision/request',
      id: p.status(id).pending!.request_id,
      title: 'Launch?',
    });
    expect(req.handoff).toMatchObject({ target_role: 'human', expects_response: true });
    const data = req.content.body.data;
    expect(data.decisions.map((d: { id: string; type: string }) => `${d.id}:${d.type}`)).toEqual([
      'd1:approval',
      'd2:choice',
      'd3:number',
      'd4:text',
      'd5:multi_choice',
      'd6:date',
    ]);
    expect(data.decisions[1]).toMatchObject({ default: 'later', options: [{ value: 'now' }, { value: 'later' }] });
    expect(data.decisions[2]).toMatchObject({ required: true, constraints: { min: 1, max: 100 } });

    const response = (requestId: string) => ({
      aah_version: '0.1',
      artifact: { id: 'resp-1', type: 'decision/response' },
      source: { agent_id: 'human:frank' },
      content: {
        body: {
          data: {
            request_id: requestId,
            summary: 'go for web first',
            responses: [
              { decision_id: 'd1', approved: true, comment: 'ok' },
              { decision_id: 'd2', selected: 'now' },
              { decision_id: 'd3', value: 10 },
              { decision_id: 'd5', selected: ['web'] },
            ],
          },
        },
      },
    });
    p.write('wrong.json', JSON.stringify(response('shop-run-999-call-1-ask-1')));
    const wrong = p.shop(['signal', String(id), '--response-file', 'wrong.json']);
    expect(wrong.code).toBe(2);
    expect(lines(wrong.stderr)).toEqual([
      `shop: the response answers shop-run-999-call-1-ask-1, but the run waits on ${req.artifact.id} (see shop status ${id} --aah)`,
    ]);
    expect(humanAnswers(p, id)).toEqual([]);

    p.write('response.json', JSON.stringify(response(req.artifact.id)));
    const ok = p.shop(['signal', String(id), '--response-file', 'response.json']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(result(p, id)).toEqual({
      answers: { d1: true, d2: 'now', d3: 10, d5: ['web'] },
      comments: { d1: 'ok' },
      overall: 'all_approved',
      responder: 'frank',
      cont: true,
      message: 'go for web first',
    });
    expect(p.shop(['status', String(id), '--aah']).code).toBe(6);
  });

  it('overall_status: partial continues, all_rejected does not', () => {
    const p = project();
    const partial = paused(p, 'two');
    expect(p.shop(['signal', String(partial), '--answers', '{"api": true, "ui": false}']).code).toBe(0);
    expect(result(p, partial)).toEqual({ overall: 'partial', cont: true, answers: { api: true, ui: false } });
    const none = paused(p, 'two');
    expect(
      p.shop(['signal', String(none), '--answers', '{"api": false, "ui": {"value": false, "comment": "not yet"}}'])
        .code,
    ).toBe(0);
    expect(result(p, none)).toEqual({ overall: 'all_rejected', cont: false, answers: { api: false, ui: false } });
    // approve on a pause whose decisions are all approvals: every one true.
    const all = paused(p, 'two');
    expect(p.shop(['approve', String(all)]).code).toBe(0);
    expect(result(p, all)).toEqual({ overall: 'all_approved', cont: true, answers: { api: true, ui: true } });
  });

  it('approve needs every required decision; reject stops with the feedback', () => {
    const p = project();
    const id = paused(p);
    const r = p.shop(['approve', String(id)]);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([
      `shop: approving needs every decision: d3: required (number: Budget); d5: required (multi_choice: Platforms); give them with: shop signal ${id}.1 --answers '{"d1": …, "d2": …, "d3": …, "d4": …, "d5": …, "d6": …}'`,
    ]);
    expect(humanAnswers(p, id)).toEqual([]);
    const no = p.shop(['reject', String(id), 'too expensive']);
    expect(no.code).toBe(0);
    expect(result(p, id)).toMatchObject({
      cont: false,
      overall: 'all_rejected',
      message: 'too expensive',
      responder: 'tester',
    });
  });

  it('shop continue walks the decisions from piped stdin, re-asking an invalid entry', () => {
    const p = project();
    const id = paused(p);
    // d1 y · d2 "2" = later · d3 "500" (re-asked) then 42 · d4 empty · d5 "1,3" · d6 empty · submit (default yes) · note
    const r = p.shop(['continue', String(id)], {
      input: 'y\n2\n500\n42\n\n1,3\n\n\nlooks fine\n',
      env: { SHOP_USER: 'carol' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('d3: Budget');
    expect(r.stdout).toContain('✗ d3: must be ≤ 100');
    expect(r.stdout.match(/number \(1 to 100\):/g)).toHaveLength(2);
    expect(r.stdout).toContain('answered decisions');
    expect(result(p, id)).toEqual({
      answers: { d1: true, d2: 'later', d3: 42, d5: ['web', 'android'] },
      comments: {},
      overall: 'all_approved',
      responder: 'carol',
      cont: true,
      message: 'looks fine',
    });
    expect(humanAnswers(p, id)).toEqual([expect.objectContaining({ actor: 'carol', channel: 'continue' })]);
  });

  it('shop continue with its input closed early records nothing and names the command that can answer', () => {
    const p = project();
    const id = paused(p);
    const r = p.shop(['continue', String(id)], { input: 'y\n' });
    expect(r.code).toBe(2);
    const hint = `shop signal ${id}.1 --answers '{"d1": …, "d2": …, "d3": …, "d4": …, "d5": …, "d6": …}'`;
    expect(lines(r.stderr)).toEqual([`shop: no answer given (input closed); answer with: ${hint}`]);
    expect(humanAnswers(p, id)).toEqual([]);
    expect(p.status(id).pending!.answer_with).toContain(hint);
  });
});
