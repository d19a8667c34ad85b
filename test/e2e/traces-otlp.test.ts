import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, killLeftovers, lines, makeProject, runId, type Project } from './harness.js';
import { packagesLoaded } from './loaded-packages.js';
import { withClock } from './clock-file.js';
import { OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

/**
 * Traces (issue 27): with OTEL_EXPORTER_OTLP_ENDPOINT set, a run is a trace and each call a span,
 * exported by whichever process records the call's end — across a suspension too — and the agent's
 * process is given its attempt's span as TRACEPARENT. Off, the SDK is never loaded.
 */

afterEach(killLeftovers);

/** A shell step, a sleep, an agent that asks first (its shell prints its TRACEPARENT), then a pause. */
const WORKFLOW = `function workflow(prompt)
  sh("echo built")
  sleep(600)
  local r = run("coder", "do it")
  local ok = pause("Ship it?")
  return r.status
end
`;
const PRINT_TRACEPARENT = 'printf %s "$TRACEPARENT"';

function tracedProject(): Project {
  const p = makeProject();
  p.write('workflows/traced.lua', WORKFLOW);
  p.scenario({
    agents: {
      coder: [
        { status: 'NEEDS_HUMAN', reason: 'Which database?', awaiting: 'input', sh: PRINT_TRACEPARENT, cost: 0.25 },
        { status: 'DONE', summary: 'done', sh: PRINT_TRACEPARENT, cost: 0.5 },
      ],
    },
  });
  return p;
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('traces over OTLP', () => {
  it('a run suspended and resumed in new processes is one trace: its calls under its root, the ask naming who answered', async () => {
    const receiver = new OtlpReceiver();
    const endpoint = await receiver.start();
    try {
      const p = tracedProject();
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'shop-test' };
      const moveClock = withClock(p);
      const first = await p.shopAsync(['run', 'traced', 'x'], { env });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(7);
      const id = runId(first);
      // The sleep is over: resumed in a second process, up to the agent's question.
      moveClock(700);
      const woken = await p.shopAsync(['resume', String(id)], { env });
      expect(woken.stderr).toBe('');
      expect(woken.code).toBe(3);
      // The agent's question: answered by ada in a process of her own, which drives the run on to the pause.
      const answered = await p.shopAsync(['answer', `${id}.3`, 'use postgres'], { env: { ...env, SHOP_USER: 'ada' } });
      expect(answered.stderr).toBe('');
      expect(p.status(id).pending).toMatchObject({ key: '4', question: 'Ship it?' });
      const approved = await p.shopAsync(['approve', `${id}.4`], { env: { ...env, SHOP_USER: 'grace' } });
      expect(approved.stderr).toBe('');
      expect(approved.code).toBe(0);
      expect(p.status(id).status).toBe('completed');

      const spans = receiver.spans;
      expect(receiver.contentTypes).toEqual(new Set(['application/json']));
      // Replayed calls (the shell step, replayed by three later processes) are not exported again.
      expect(spans.map((s) => s.name).sort()).toEqual([
        'agent coder',
        'agent coder',
        'ask',
        'ask',
        'run traced',
        'sh',
        'sleep',
      ]);
      expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
      const [root] = byName(spans, 'run traced');
      expect(root).toMatchObject({ parentSpanId: '', service: 'shop-test' });
      expect(root!.attributes).toMatchObject({
        'shop.run.id': id,
        'shop.workflow': 'traced',
        'shop.run.status': 'completed',
      });
      for (const s of spans) {
        expect(s.traceId, s.name).toBe(root!.traceId);
        if (s !== root) expect(s.parentSpanId, s.name).toBe(root!.spanId);
        expect(s.endMs, s.name).toBeGreaterThanOrEqual(s.startMs);
        expect(s.startMs, s.name).toBeGreaterThanOrEqual(root!.startMs);
        expect(s.endMs, s.name).toBeLessThanOrEqual(root!.endMs);
      }
      expect(byName(spans, 'sh')[0]!.attributes).toMatchObject({ 'shop.call.key': '1', 'shop.call.kind': 'sh' });

      // The sleep's span covers its wait: ten minutes by the store's clock.
      const [sleep] = byName(spans, 'sleep');
      expect(sleep!.attributes).toMatchObject({
        'shop.call.key': '2',
        'shop.outcome': 'completed',
        'shop.wait.kind': 'timer',
      });
      expect(sleep!.endMs - sleep!.startMs).toBeGreaterThanOrEqual(600_000);

      const attempts = byName(spans, 'agent coder').sort((a, b) => a.startMs - b.startMs);
      expect(attempts.map((a) => a.attributes)).toEqual([
        expect.objectContaining({
          'shop.agent': 'coder',
          'shop.agent.cli': 'claude',
          'shop.attempt': 1,
          'shop.outcome': 'needs_human',
          'shop.cost_usd': 0.25,
          'gen_ai.usage.input_tokens': expect.any(Number),
          'gen_ai.usage.output_tokens': expect.any(Number),
        }),
        expect.objectContaining({
          'shop.agent': 'coder',
          'shop.attempt': 2,
          'shop.outcome': 'completed',
          'shop.agent.status': 'DONE',
          // This attempt's own spend: the call's total (0.75) less what the first attempt spent.
          'shop.cost_usd': 0.5,
        }),
      ]);
      expect(attempts.every((a) => (a.attributes['gen_ai.usage.input_tokens'] as number) > 0)).toBe(true);
      // The session of the agent's call, as Shop named it.
      const session = p.invocations().find((i) => i.agent === 'coder')!.session_id;
      expect(attempts.map((a) => a.attributes['shop.session.id'])).toEqual([session, session]);

      // The asks: the agent's, answered by ada, from its question to her answer; the pause's by grace.
      const asks = byName(spans, 'ask').sort((a, b) => a.startMs - b.startMs);
      expect(asks.map((a) => a.attributes)).toEqual([
        expect.objectContaining({
          'shop.call.key': '3',
          'shop.agent': 'coder',
          'shop.ask.answerer': 'ada',
          'shop.ask.channel': 'cli',
        }),
        expect.objectContaining({
          'shop.call.key': '4',
          'shop.call.kind': 'pause',
          'shop.ask.answerer': 'grace',
          'shop.ask.verdict': 'approved',
        }),
      ]);
      expect(asks[0]!.startMs).toBeGreaterThanOrEqual(attempts[0]!.endMs);
      expect(asks[0]!.endMs).toBeLessThanOrEqual(attempts[1]!.startMs);

      // Each attempt's process was given its span as TRACEPARENT: Claude Code's telemetry joins the trace there.
      const given = p
        .invocations()
        .filter((i) => i.agent === 'coder')
        .map((i) => i.shell?.stdout);
      expect(given).toEqual(attempts.map((a) => `00-${root!.traceId}-${a.spanId}-01`));
    } finally {
      await receiver.stop();
    }
  });

  it('without the variable the SDK is never loaded; with it, it is', () => {
    const p = makeProject();
    p.write(
      'workflows/gate.lua',
      'function workflow(prompt)\n  sh("true")\n  return pause("Ship it?").continue\nend\n',
    );
    const off = packagesLoaded(p, ['run', 'gate']);
    expect(off.code).toBe(3);
    expect([...off.packages].filter((n) => n.startsWith('@opentelemetry/'))).toEqual([]);
    // The check can fail: the same run with an endpoint (nothing listens there) loads the SDK.
    const on = packagesLoaded(p, ['run', 'gate'], {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces',
    });
    expect(on.code).toBe(3);
    expect([...on.packages]).toEqual(
      expect.arrayContaining(['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http']),
    );
  });

  it('an endpoint that is not an http(s) URL is said at once in one line, and the run goes on untraced', () => {
    const p = makeProject();
    p.write('workflows/quick.lua', 'function workflow(prompt)\n  sh("true")\n  return "ok"\nend\n');
    for (const env of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector' },
    ]) {
      const r = packagesLoaded(p, ['run', 'quick'], env);
      expect(r.code, r.stderr).toBe(0);
      const name = Object.keys(env).at(-1);
      expect(lines(r.stderr)).toEqual([
        `shop: warning: ${name} is not an http(s) URL: traces are not sent (give an OTLP/HTTP collector's, such as http://localhost:4318)`,
      ]);
      expect([...r.packages].filter((n) => n.startsWith('@opentelemetry/'))).toEqual([]);
    }
  });

  it('a collector that cannot be reached, or never answers, neither fails nor stalls the run: one warning line', async () => {
    // Nothing listens on the one; the other takes the connection and never says a word.
    const closed = await freePort();
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      for (const endpoint of [
        `http://127.0.0.1:${closed}`,
        `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      ]) {
        const p = makeProject();
        p.write('workflows/quick.lua', 'function workflow(prompt)\n  sh("true")\n  return "ok"\nend\n');
        const started = Date.now();
        const r = await p.shopAsync(['run', 'quick'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
        const took = Date.now() - started;
        expect(r.code, r.stderr).toBe(0);
        expect(lines(r.stderr)).toEqual([
          expect.stringMatching(new RegExp(`^shop: warning: traces were not sent to ${endpoint}/v1/traces: .+`)),
        ]);
        // Bounded: the flush gives up after 2 s (the exporter's own timeout is 10 s).
        expect(took).toBeLessThan(6000);
      }
    } finally {
      silent.close();
    }
  });
});
