/**
 * Imported just before node-postgres, for its effect. While loading, pg asks whether it runs in a
 * Cloudflare Worker: where the runtime has no `navigator` (Node 20; Node 21 and later have one),
 * it builds a `new Response(…)` to find out, which loads Node's whole fetch implementation — ~12 ms
 * of every command on PostgreSQL (measured with --cpu-prof on `shop approve`). A `navigator` that
 * names Node, as later Nodes have, answers the question at once; node-postgres.ts takes it away
 * again once pg has loaded.
 */
const lent = !('navigator' in globalThis);
if (lent)
  Object.defineProperty(globalThis, 'navigator', {
    value: { userAgent: `Node.js/${process.versions.node}` },
    configurable: true,
  });

/** Takes away the `navigator` lent for pg's load (a runtime that had its own keeps it). */
export function returnNavigator(): void {
  if (lent) delete (globalThis as { navigator?: unknown }).navigator;
}
