import type { EnginePorts } from '../engine/ports.js';
import type { MetricsText, ShopMetrics } from '../metrics/prometheus.js';
import { liveWorkerCount } from '../worker/registration.js';

let metrics: ShopMetrics | null = null;

/** This process's metrics in Prometheus' text format; the client is loaded on the first scrape only. */
export async function metricsText(ports: EnginePorts): Promise<MetricsText> {
  if (!metrics) {
    const { ShopMetrics } = await import('../metrics/prometheus.js');
    metrics = new ShopMetrics({ counts: () => ports.store.metricCounts(), liveWorkers: () => liveWorkerCount(ports) });
  }
  return metrics.text();
}
