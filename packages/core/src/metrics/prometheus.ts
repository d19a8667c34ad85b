import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { STEP_SECONDS, TOKEN_KINDS, type MetricCounts, type TokenKind } from '../store/metric-counts.js';

/** One scrape's reads: the store's counts, and how many workers are live (by the store's clock). */
export interface MetricSource {
  counts(): Promise<MetricCounts>;
  liveWorkers(): Promise<number>;
}

export interface MetricsText {
  contentType: string;
  text: string;
}

/**
 * Shop's metrics in Prometheus' text format (the official client, prom-client): what is in the
 * store as gauges — every label bounded (statuses, the project's workflows and agents, never a
 * run id) — and this process's own (CPU, memory, event loop). One registry per process; each
 * scrape reads the store once.
 */
export class ShopMetrics {
  private readonly registry = new Registry();
  private readonly runs = this.gauge(
    'shop_runs',
    'Runs by status (as shown: interrupted when its driver is gone) and workflow',
    ['status', 'workflow'],
  );
  private readonly asks = this.gauge('shop_asks_waiting', 'Asks open now (calls waiting for a person)');
  private readonly oldestAsk = this.gauge(
    'shop_ask_oldest_wait_seconds',
    'How long the oldest open ask has waited (0 with none)',
  );
  private readonly steps = this.gauge(
    'shop_agent_steps',
    'Agent steps recorded, by agent and status (completed, failed, running, waiting_human…)',
    ['agent', 'status'],
  );
  private readonly attempts = this.gauge(
    'shop_agent_attempts',
    'Agent attempts recorded, by agent (attempts minus steps: the retries)',
    ['agent'],
  );
  private readonly cost = this.gauge('shop_agent_cost_usd', 'Cost the agents reported, in US dollars, by agent', [
    'agent',
  ]);
  private readonly tokens = this.gauge(
    'shop_agent_tokens',
    'Tokens the agents reported, by agent and kind (input, output, cache_read, cache_write)',
    ['agent', 'kind'],
  );
  private readonly timersDue = this.gauge(
    'shop_timers_due',
    'Timers due now and not fired yet (a worker lagging shows here)',
  );
  private readonly workers = this.gauge('shop_workers_live', 'shop watch workers live on this store');
  private readonly durations = new StoreHistogram(
    'shop_agent_step_duration_seconds',
    'How long agent steps took, as their CLI reported it, by agent',
  );

  constructor(private readonly source: MetricSource) {
    collectDefaultMetrics({ register: this.registry, prefix: 'shop_process_' });
    this.registry.registerMetric(this.durations as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  async text(): Promise<MetricsText> {
    const [c, live] = await Promise.all([this.source.counts(), this.source.liveWorkers()]);
    this.set(c, live);
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private set(c: MetricCounts, live: number): void {
    for (const g of [this.runs, this.steps, this.attempts, this.cost, this.tokens]) g.reset();
    for (const r of c.runs) this.runs.set({ status: r.status, workflow: r.workflow }, r.count);
    this.asks.set(c.asksWaiting);
    this.oldestAsk.set(c.oldestAskSince === null ? 0 : Math.max(0, (c.at - c.oldestAskSince) / 1000));
    const byAgent = new Map<string, { attempts: number; cost: number; tokens: Record<TokenKind, number> }>();
    for (const s of c.steps) {
      this.steps.set({ agent: s.agent, status: s.status }, s.count);
      const a = byAgent.get(s.agent) ?? {
        attempts: 0,
        cost: 0,
        tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
      };
      for (const k of TOKEN_KINDS) a.tokens[k] += s.tokens[k];
      byAgent.set(s.agent, { attempts: a.attempts + s.attempts, cost: a.cost + s.costUsd, tokens: a.tokens });
    }
    for (const [agent, a] of byAgent) {
      this.attempts.set({ agent }, a.attempts);
      this.cost.set({ agent }, Math.round(a.cost * 1e6) / 1e6);
      for (const kind of TOKEN_KINDS) this.tokens.set({ agent, kind }, a.tokens[kind]);
    }
    this.durations.set(c.durations);
    this.timersDue.set(c.timersDue);
    this.workers.set(live);
  }

  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }
}

type Sample = { metricName: string; labels: Record<string, string>; value: number };

/**
 * A histogram of what the store holds (not of what this process observed): its buckets are
 * counted by the store each scrape, so every process scraped shows every step. prom-client's
 * registry takes any metric with a name, help, type and get().
 */
class StoreHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private values: Sample[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(durations: MetricCounts['durations']): void {
    this.values = durations.flatMap(({ agent, atMost, count, sumMs }) => [
      ...STEP_SECONDS.map((le, i) => ({
        metricName: `${this.name}_bucket`,
        labels: { agent, le: String(le) },
        value: atMost[i] ?? 0,
      })),
      { metricName: `${this.name}_bucket`, labels: { agent, le: '+Inf' }, value: count },
      { metricName: `${this.name}_sum`, labels: { agent }, value: sumMs / 1000 },
      { metricName: `${this.name}_count`, labels: { agent }, value: count },
    ]);
  }

  async get() {
    return { name: this.name, help: this.help, type: this.type, values: this.values, aggregator: this.aggregator };
  }
}
