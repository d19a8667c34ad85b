import type { EnginePorts } from '../engine/ports.js';
import type { MetricsText, ShopMetrics } from '../metrics/prometheus.js';
import { liveWorkers } from './live-workers.js';

let metrics: ShopMetrics | null = null;

/** This process's metrics in Prometheus' text format; the client is loaded on the first scrape only. */
export async function metricsText(ports: EnginePorts): Promise<MetricsText> {
  if (!metrics) {
    const { ShopMetrics } = await import('../metrics/prometheus.js');
    metrics = new ShopMetrics({ counts: () => ports.store.metricCounts(), liveWorkers: () => liveWorkers(ports) });
  }
  return metrics.text();
}
