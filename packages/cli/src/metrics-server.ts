import { createServer } from 'node:http';
import { UsageError, quoted, type ShopOperations } from '@shop/core';

/**
 * shop watch --metrics-port N: GET /metrics on 127.0.0.1:N (loopback only: a scraper on this
 * machine; anything else is 404). Bound before the worker starts, so a port in use is one line.
 */
export async function serveMetrics(raw: string, ops: ShopOperations): Promise<{ close(): Promise<void> }> {
  const port = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || port < 1 || port > 65535)
    throw new UsageError(`--metrics-port ${quoted(raw)} must be a port number, 1 to 65535`);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    ops.metrics().then(
      ({ contentType, text }) => res.writeHead(200, { 'Content-Type': contentType }).end(text),
      (e: unknown) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end(`${(e as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new UsageError(`--metrics-port ${port}: the port is in use; pick another`) : e),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { close: () => new Promise((r) => server.close(() => r())) };
}
