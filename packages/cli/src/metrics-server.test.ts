import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UsageError, type ShopOperations } from '@shop/core';
import { serveMetrics } from './metrics-server.js';

const ops = {
  metrics: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', text: 'shop_asks_waiting 3\n' }),
} as unknown as ShopOperations;

describe('shop watch --metrics-port', () => {
  it('serves GET /metrics on loopback and nothing else', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const served = await serveMetrics(String(port), ops);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect([r.status, await r.text()]).toEqual([200, 'shop_asks_waiting 3\n']);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
      // A port in use is one line, as bad input.
      await expect(serveMetrics(String(port), ops)).rejects.toThrow(
        new UsageError(`--metrics-port ${port}: the port is in use; pick another`),
      );
    } finally {
      await served.close();
    }
  });

  it('refuses what is no port', async () => {
    for (const raw of ['0', '65536', 'http', '-1'])
      await expect(serveMetrics(raw, ops)).rejects.toThrow(/must be a port number, 1 to 65535/);
  });
});
