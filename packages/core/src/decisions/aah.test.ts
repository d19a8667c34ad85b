import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { agentAsk, fakeRun, pauseAsk } from '../engine/testing/executions.js';
import { aahRequest, parseAahResponse } from './aah.js';
import { requestId } from './call-decisions.js';

const launch = {
  message: 'Approve the launch?',
  context: 'Review the proposed strategy before launch.',
  decisions: [
    { id: 'd1', type: 'approval', prompt: 'Approve target segments?' },
    { id: 'd3', type: 'choice', prompt: 'Launch timing', options: ['immediate', 'next_week'], default: 'next_week' },
  ],
  deadline: '2026-02-17T17:00:00Z',
};

describe('aahRequest', () => {
  it('a structured pause becomes a pending decision/request with its decisions and deadline', () => {
    const exec = pauseAsk(launch, { key: '3/2', ask: 2 });
    const req = aahRequest(fakeRun(), exec);
    expect(req).toEqual({
      aah_version: '0.1',
      artifact: {
        id: 'shop-run-7-call-3-2-ask-2',
        type: 'decision/request',
        title: 'Approve the launch?',
        created_at: '2023-11-14T22:14:20.000Z',
      },
      source: { agent_id: '_checkpoint', task_id: 'shop-run-7' },
      content: {
        media_type: 'application/vnd.aah.decision-request+json',
        body: {
          schema: 'aah:decision/request@1.0',
          data: {
            context: 'Review the proposed strategy before launch.',
            decisions: (exec.request as { decisions: unknown[] }).decisions,
            blocking: [{ task_id: 'shop-run-7', description: 'run 7 (feature) waits on call 3/2' }],
            deadline: '2026-02-17T17:00:00.000Z',
          },
        },
      },
      handoff: { target_role: 'human', expects_response: true, response_deadline: '2026-02-17T17:00:00.000Z' },
      lifecycle: { status: 'pending', visibility: 'team' },
    });
    expect(req.content.body.data.decisions.map((d) => [d.id, d.type, d.required])).toEqual([
      ['d1', 'approval', true],
      ['d3', 'choice', true],
    ]);
  });

  it('a deadline in seconds counts from when the pause started; no deadline, no deadline keys', () => {
    const timed = aahRequest(fakeRun(), pauseAsk({ message: 'Go?', deadline: 3600 }));
    expect(timed.content.body.data).toMatchObject({ deadline: '2023-11-14T23:13:20.000Z', decisions: [] });
    expect(timed.handoff).toMatchObject({ response_deadline: '2023-11-14T23:13:20.000Z' });
    const plain = aahRequest(fakeRun(), pauseAsk('Go?'));
    expect(plain.content.body.data).not.toHaveProperty('deadline');
    expect(plain.handoff).toEqual({ target_role: 'human', expects_response: true });
    expect(plain.content.body.data.context).toBe('feature: add login');
  });

  it("an agent's ask implies one decision: a text answer for input, an approval otherwise", () => {
    const input = aahRequest(fakeRun(), agentAsk());
    expect(input.artifact).toMatchObject({ id: 'shop-run-7-call-2-ask-1', title: 'which database?' });
    expect(input.source).toEqual({ agent_id: 'coder', task_id: 'shop-run-7' });
    expect(input.content.body.data.decisions).toEqual([
      { id: 'answer', type: 'text', prompt: 'which database?', required: true },
    ]);
    const review = aahRequest(fakeRun(), agentAsk({ awaiting: 'review', waitingFor: 'PR #4 ready', ask: 3 }));
    expect(review.artifact.id).toBe('shop-run-7-call-2-ask-3');
    expect(review.content.body.data.decisions).toEqual([
      { id: 'approve', type: 'approval', prompt: 'PR #4 ready', required: true },
    ]);
    expect(review.handoff).toEqual({ target_role: 'human', expects_response: true });
  });
});

describe('parseAahResponse', () => {
  const exec = pauseAsk(launch, { ask: 1 });
  const data = {
    request_id: requestId(exec),
    responses: [
      { decision_id: 'd1', approved: false, comment: 'narrow it' },
      { decision_id: 'd3', selected: 'immediate', comment: null, decided_at: '2026-02-16T14:30:00Z' },
      { decision_id: 'd5', value: 42 },
    ],
    overall_status: 'partial',
    summary: 'Approved with changes',
  };
  const artifact = (source: Record<string, string>) => ({
    aah_version: '0.1',
    artifact: { id: 'resp-1', type: 'decision/response', title: 'Response', created_at: '2026-02-16T14:30:00Z' },
    source,
    content: {
      media_type: 'application/vnd.aah.decision-response+json',
      body: { schema: 'aah:decision/response@1.0', data },
    },
    lifecycle: { status: 'final' },
  });
  const answers = {
    d1: { value: false, comment: 'narrow it' },
    d3: { value: 'immediate', comment: null },
    d5: { value: 42, comment: null },
  };

  it('reads a full artifact: answers by decision id, responder, summary', () => {
    expect(parseAahResponse(artifact({ agent_id: 'human:gracie', agent_name: 'Gracie Redfern' }), exec)).toEqual({
      answers,
      responder: 'Gracie Redfern',
      summary: 'Approved with changes',
    });
    expect(parseAahResponse(artifact({ agent_id: 'human:gracie' }), exec).responder).toBe('gracie');
    expect(parseAahResponse(artifact({ agent_id: 'ops-bot' }), exec).responder).toBe('ops-bot');
  });

  it('reads the content, the bare body or the data as well (no responder then)', () => {
    expect(parseAahResponse(artifact({ agent_id: 'human:gracie' }).content, exec)).toEqual({
      answers,
      responder: null,
      summary: 'Approved with changes',
    });
    expect(parseAahResponse({ schema: 'aah:decision/response@1.0', data }, exec)).toEqual({
      answers,
      responder: null,
      summary: 'Approved with changes',
    });
    expect(parseAahResponse(data, exec)).toEqual({ answers, responder: null, summary: 'Approved with changes' });
    expect(parseAahResponse({ responses: [{ decision_id: 'd1', approved: true }] }, exec)).toEqual({
      answers: { d1: { value: true, comment: null } },
      responder: null,
      summary: null,
    });
  });

  it('refuses a response to another request, naming both ids', () => {
    const other = () => parseAahResponse({ ...data, request_id: 'shop-run-7-call-2-ask-0' }, exec);
    expect(other).toThrow(UsageError);
    expect(other).toThrow(
      'the response answers shop-run-7-call-2-ask-0, but the run waits on shop-run-7-call-2-ask-1 (see shop status 7 --aah)',
    );
  });

  it('refuses what is not a decision/response', () => {
    for (const bad of [
      null,
      'yes',
      {},
      { responses: 'd1' },
      { responses: [{ approved: true }] },
      { content: { body: { data: {} } } },
    ]) {
      expect(() => parseAahResponse(bad, exec), JSON.stringify(bad)).toThrow(/^not an AAH decision\/response: /);
    }
    expect(() => parseAahResponse({ responses: [{ approved: true }] }, exec)).toThrow(/responses\.0\.decision_id/);
  });
});
