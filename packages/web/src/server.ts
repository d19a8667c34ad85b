// node:http, no framework: the measured choice. The server needs a dozen routes, cookies and
// form posts; node:http does that with no dependency to vet or update and nothing to load at
// start-up (a framework such as Hono adds a package and its load time to every `shop serve`).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConflictError, UsageError } from '@shop/core';
import { createApp } from './app.js';
import { ChangeFeed } from './change-feed.js';
import { limitConnectionsPerAddress, MAX_CONNECTIONS } from './connection-limits.js';
import { CsrfTokens } from './csrf.js';
import { originsOf } from './request-guard.js';
import type { ServerDeps } from './server-deps.js';

export interface RunningServer {
  /** Where it listens: http://127.0.0.1:7878 */
  url: string;
  host: string;
  port: number;
  /** Stops accepting, ends live streams and open connections. */
  close(): Promise<void>;
}

/**
 * Slow clients are cut off: headers within 5 s (a browser sends them at once; a client
 * trickling them — slowloris — holds its connection no longer), a whole request within 30 s,
 * idle keep-alive 5 s. Node looks for overdue requests only every connectionsCheckingInterval
 * (30 s unless told): every second, or a client trickling its headers holds a connection for ~30 s.
 */
const TIMEOUTS = {
  headersTimeout: 5_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

/** Starts `shop serve`'s server; a port in use is a ConflictError, a host we can't bind a UsageError. */
export async function startServer(deps: ServerDeps, opts: { host: string; port: number }): Promise<RunningServer> {
  const server: Server = createServer({ ...TIMEOUTS, maxHeaderSize: 16 * 1024 });
  const feed = new ChangeFeed(deps.ops, (e) => deps.log(`shop serve: live updates: ${(e as Error)?.message ?? e}`));
  await listen(server, opts);
  const { port } = server.address() as AddressInfo;
  const origins = originsOf(opts.host, port, deps.publicUrl);
  const handle = createApp(deps, origins, new CsrfTokens(randomBytes(32)), feed, port);
  server.on('request', (req, res) => void handle(req, res));
  // A socket idle this long (no request, no event written) is closed; live streams write a heartbeat.
  server.setTimeout(60_000, (socket) => socket.destroy());
  server.maxConnections = MAX_CONNECTIONS;
  // No one address may hold more than its share of them (slowloris from one machine).
  limitConnectionsPerAddress(server);
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}`,
    host: opts.host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        feed.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, opts: { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const where = `${opts.host}:${opts.port}`;
      if (e.code === 'EADDRINUSE')
        reject(
          new ConflictError(
            `port ${opts.port} on ${opts.host} is in use (another shop serve?); pick another with --port N`,
          ),
        );
      else if (e.code === 'EACCES')
        reject(
          new UsageError(
            `not allowed to listen on ${where} (ports below 1024 need privileges); pick another with --port N`,
          ),
        );
      else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
        reject(new UsageError(`--host ${opts.host} is not an address of this machine`));
      else reject(e);
    });
    server.listen(opts.port, opts.host, () => resolve());
  });
}
