import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiTokenAddedJsonSchema } from '../../packages/core/src/access/person-json.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';
import { freePort, killLeftovers, makeProject, runId, startWorker, until } from './harness.js';
import { http, startServe } from './serve-harness.js';

/**
 * A real Prometheus (Debian's) scrapes `shop serve` (with an API token) and `shop watch
 * --metrics-port`, and PromQL answers what the store holds: the asks waiting, the agent steps
 * completed, the runs by status and workflow.
 */
afterEach(killLeftovers);
let prometheus: ChildProcess | null = null;
afterAll(() => void prometheus?.kill('SIGKILL'));

describe('metrics', () => {
  it('Prometheus scrapes shop serve and shop watch; PromQL gives the waiting asks and the completed steps', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', 'function workflow(prompt)\n  pause("Ship?")\n  return "shipped"\nend\n');
    p.write('workflows/once.lua', 'function workflow(prompt)\n  return run("coder", "build").summary\nend\n');
    p.scenario({ agents: { coder: [{ status: 'DONE', summary: 'built' }] } });
    const first = p.shop(['run', 'gate', 'a']);
    expect(first.code).toBe(3);
    expect(p.shop(['run', 'gate', 'b']).code).toBe(3);
    const done = p.shop(['run', 'once', 'x']);
    expect(done.code).toBe(0);
    const token = ApiTokenAddedJsonSchema.parse(
      JSON.parse(p.shop(['access', 'add', 'prometheus', '--token', '--json']).stdout),
    ).token;
    const s = await startServe(p);
    expect((await http(s, '/metrics')).status).toBe(401);
    const watchPort = await freePort();
    const w = await startWorker(p, ['--metrics-port', String(watchPort)]);
    const own = await fetch(`http://127.0.0.1:${watchPort}/metrics`);
    expect(own.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await own.text()).toMatch(/^# HELP shop_runs /m);

    const dir = tempDir('shop-prometheus-');
    const promPort = await freePort();
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, scrape_timeout: 1s }
scrape_configs:
  - job_name: shop-serve
    authorization: { type: Bearer, credentials: ${token} }
    static_configs: [{ targets: ['127.0.0.1:${s.port}'] }]
  - job_name: shop-watch
    static_configs: [{ targets: ['127.0.0.1:${watchPort}'] }]
`,
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: 'ignore' },
    );
    const query = async (q: string): Promise<string | null> => {
      try {
        const r = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(q)}`);
        const body = (await r.json()) as { data?: { result?: { value: [number, string] }[] } };
        return body.data?.result?.[0]?.value[1] ?? null;
      } catch {
        return null;
      }
    };
    await until(
      'Prometheus to have scraped both',
      async () => (await query('up{job="shop-serve"} + on() up{job="shop-watch"}')) === '2',
      { timeoutMs: 30_000, everyMs: 500 },
    );
    expect(await query('shop_asks_waiting{job="shop-serve"}')).toBe('2');
    expect(await query('sum(shop_agent_steps{job="shop-watch", agent="coder", status="completed"})')).toBe('1');
    // Tokens as the coder's CLI reported them (the stand-in reports usage as Claude Code does).
    expect(Number(await query('shop_agent_tokens{job="shop-serve", agent="coder", kind="input"}'))).toBeGreaterThan(0);
    expect(await query('shop_agent_tokens{job="shop-watch", agent="coder", kind="output"}')).toBe(
      await query('shop_agent_tokens{job="shop-serve", agent="coder", kind="output"}'),
    );
    expect(await query('shop_runs{job="shop-serve", workflow="gate", status="waiting_human"}')).toBe('2');
    expect(await query('shop_runs{job="shop-serve", workflow="once", status="completed"}')).toBe('1');
    // The step-duration histogram: the one coder step is in the +Inf bucket and counted once.
    expect(await query('shop_agent_step_duration_seconds_count{job="shop-serve", agent="coder"}')).toBe('1');
    expect(await query('shop_agent_step_duration_seconds_bucket{job="shop-watch", agent="coder", le="+Inf"}')).toBe(
      '1',
    );
    expect(
      Number(await query('histogram_quantile(0.5, shop_agent_step_duration_seconds_bucket{job="shop-serve"})')),
    ).toBeGreaterThan(0);
    // Answered: the worker completes it, and the next scrape says so.
    expect(p.shop(['approve', `${runId(first)}.1`]).code).toBe(0);
    await until('one ask left', async () => (await query('shop_asks_waiting{job="shop-watch"}')) === '1', {
      timeoutMs: 20_000,
      everyMs: 500,
    });
    expect(w.child.exitCode).toBe(null);
  }, 90_000);
});
