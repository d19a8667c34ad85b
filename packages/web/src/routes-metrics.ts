import type { Ctx } from './request-context.js';

/**
 * GET /metrics: Prometheus' text format, for a scraper holding an API token (its scrape config's
 * `authorization: { credentials: <token> }`) or a signed-in person. Labels are bounded: statuses,
 * workflows, agents — never a run id.
 */
export async function metricsRoute(c: Ctx) {
  const { contentType, text } = await c.deps.ops.metrics();
  c.res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  c.res.end(text);
}
