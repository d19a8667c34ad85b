import type { EventJson, ExecutionJson } from '@shop/core';
import { describe, expect, it } from 'vitest';
import { laneOf, timelineModel } from './timeline-model.js';
import { tickLabel, tickStep, timeline } from './timeline.js';

const T0 = Date.parse('2026-11-24T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function call(
  key: string,
  seq: number,
  from: number,
  to: number | null,
  over: Partial<ExecutionJson> = {},
): ExecutionJson {
  return {
    key,
    seq,
    kind: 'run',
    agent: 'coder',
    status: to === null ? 'running' : 'completed',
    fingerprint: '',
    delivered: null,
    request: null,
    session_id: null,
    cwd: null,
    awaiting: null,
    waiting_for: null,
    result: null,
    error: null,
    cost_usd: null,
    input_tokens: null,
    output_tokens: null,
    cache_read_tokens: null,
    cache_write_tokens: null,
    num_turns: null,
    duration_ms: null,
    attempts: 1,
    ask: 0,
    activity: null,
    activity_at: null,
    attempt_at: null,
    session_hold: null,
    started_at: at(from),
    finished_at: to === null ? null : at(to),
    ...over,
  };
}
let id = 0;
const event = (type: string, key: string, s: number): EventJson => ({
  id: ++id,
  at: at(s),
  type,
  key,
  actor: 'shop',
  channel: 'engine',
  data: null,
});

describe('timeline model', () => {
  it('puts each call in its strand: main first, then each parallel branch in its own lane', () => {
    expect(laneOf('3')).toBe('');
    expect(laneOf('4/1/2')).toBe('4/1');
    expect(laneOf('4/2/1/3/1')).toBe('4/2/1/3');
    const m = timelineModel(
      [
        call('1', 1, 0, 10),
        call('2', 2, 10, 60, { kind: 'parallel', agent: null }),
        call('2/1/1', 3, 10, 40),
        call('2/2/1', 4, 10, 30, { status: 'failed' }),
        call('2/1/2', 5, 40, 60),
        call('3', 6, 60, null),
        call('4', 7, 0, null, { started_at: null }), // never started: no bar
      ],
      [],
      [],
      T0 + 90_000,
    );
    expect(m.lanes.map((l) => [l.label, l.bars.map((b) => b.key)])).toEqual([
      ['main', ['1', '2', '3']],
      ['branch 2/1', ['2/1/1', '2/1/2']],
      ['branch 2/2', ['2/2/1']],
    ]);
    const running = m.lanes[0].bars[2];
    expect(running).toMatchObject({ open: true, start: T0 + 60_000, end: T0 + 90_000 }); // running: to now
    expect(m.lanes[2].bars[0]).toMatchObject({ status: 'failed', start: T0 + 10_000, end: T0 + 30_000, open: false });
    expect([m.start, m.end, m.now]).toEqual([T0, T0 + 90_000, T0 + 90_000]);
    expect(timelineModel([call('1', 1, 0, 10)], [], [], T0 + 90_000)).toMatchObject({ end: T0 + 10_000, now: null }); // all done: no "now" line
  });

  it('shades the time waiting for a person: waiting → human_answered, and an open ask until now', () => {
    const m = timelineModel(
      [call('1', 1, 0, 100, { kind: 'pause', agent: null }), call('2', 2, 100, null, { status: 'waiting_human' })],
      [
        event('waiting', '1', 5),
        event('agent_activity', '1', 6),
        event('human_answered', '1', 95),
        event('waiting', '2', 150),
      ],
      [],
      T0 + 200_000,
    );
    const [pause, agent] = m.lanes[0].bars;
    expect(pause.waits).toEqual([[T0 + 5_000, T0 + 95_000]]);
    expect(agent.waits).toEqual([[T0 + 150_000, T0 + 200_000]]);
    expect(agent).toMatchObject({ open: true, end: T0 + 200_000 });
  });

  it('asks twice: two shaded spans; an ask whose waiting event was not given starts at its waiting_since', () => {
    const m = timelineModel(
      [
        call('1', 1, 0, null, { status: 'waiting_human' }),
        call('2', 2, 0, null, { status: 'waiting_human', key: '2' }),
      ],
      [event('waiting', '1', 10), event('human_answered', '1', 20), event('waiting', '1', 30)],
      [
        { key: '2', waiting_since: at(40) },
        { key: '1', waiting_since: at(30) },
      ],
      T0 + 50_000,
    );
    expect(m.lanes[0].bars[0].waits).toEqual([
      [T0 + 10_000, T0 + 20_000],
      [T0 + 30_000, T0 + 50_000],
    ]);
    expect(m.lanes[0].bars[1].waits).toEqual([[T0 + 40_000, T0 + 50_000]]);
  });

  it('a wait cut short by a stop ends with its call', () => {
    const m = timelineModel([call('1', 1, 0, 30, { status: 'failed' })], [event('waiting', '1', 10)], [], T0 + 99_000);
    expect(m.lanes[0].bars[0].waits).toEqual([[T0 + 10_000, T0 + 30_000]]);
  });
});

describe('timeline picture', () => {
  it('draws a lane label, a coloured bar with a title and the shaded wait, and a time axis', () => {
    const svg = timeline(
      [
        call('1', 1, 0, 120),
        call('2', 2, 120, 300, { kind: 'parallel', agent: null }),
        call('2/1/1', 3, 120, null, { agent: 'reviewer', status: 'waiting_human' }),
        call('2/2/1', 4, 120, 200, { status: 'failed' }),
      ],
      [event('waiting', '2/1/1', 180)],
      [],
      T0 + 300_000,
    ).text;
    expect(svg).toMatch(/^<svg class="timeline" viewBox="0 0 720 \d+"[^>]* role="img"/);
    expect(svg).toContain('<title id="tl-title">Timeline: 4 calls over 5 min, in 3 lanes</title>');
    expect(svg.match(/<g class="lane"/g)).toHaveLength(3);
    expect(svg).toContain('>branch 2/1</text>');
    expect(svg).toContain('<title>1 coder: completed, 2 min</title>');
    expect(svg).toContain('<title>2/1/1 reviewer: waiting, 3 min so far, 2 min waiting for a person</title>');
    expect(svg).toMatch(/data-key="2\/2\/1" data-status="failed">\s*<title>[^<]*<\/title>\s*<rect [^>]*fill="#dc2626"/);
    expect(svg.match(/class="wait"/g)).toHaveLength(1);
    expect(svg).toMatch(/<line class="now" x1="692.0"/); // the right end: a call still waits
    expect(svg).toContain('fill="url(#tl-wait)"');
    for (const label of ['>0<', '>1 min<', '>2 min<', '>5 min<']) expect(svg).toContain(label);
    expect(svg).not.toMatch(/style=/);
  });

  it('escapes agent names in titles and labels; no calls yet is said in words', () => {
    const svg = timeline([call('1', 1, 0, 60, { agent: '<script>x</script>' })], [], [], T0 + 60_000).text;
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(timeline([], [], [], T0).text).toContain('No call has started yet.');
  });

  it('ticks at steps a person reads easily', () => {
    expect(tickStep(50_000)).toBe(10_000);
    expect(tickStep(5 * 60_000)).toBe(60_000);
    expect(tickStep(3 * 3_600_000)).toBe(1_800_000);
    expect([
      tickLabel(0),
      tickLabel(45_000),
      tickLabel(90_000),
      tickLabel(7_200_000),
      tickLabel(5_400_000),
      tickLabel(86_400_000 * 2),
    ]).toEqual(['0', '45 s', '1 min 30 s', '2 h', '1 h 30 min', '2 d']);
  });
});
