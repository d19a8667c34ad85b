import type { Server } from 'node:http';

/**
 * More sockets than any team's open pages: beyond it, new connections are dropped, not served
 * slowly (each open page holds one for its live updates).
 */
export const MAX_CONNECTIONS = 1_000;

/**
 * Connections one client address may hold at once; the next is closed the moment it opens. A
 * browser opens at most 6 per server, and each open page holds one for its live updates, so a
 * person never comes near it — but 1,000 sockets trickling headers from one machine (slowloris)
 * hold only this many, far below MAX_CONNECTIONS: someone else is always answered. Behind a
 * reverse proxy or a tunnel every client arrives from the proxy's address and shares this.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;

/**
 * Whom a connection counts against: an IPv4 address as it is (also when it arrives as
 * `::ffff:a.b.c.d` on a dual-stack socket); an IPv6 address by its /64, the block one machine
 * is usually given — it could otherwise take a fresh address for every connection.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return '?';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address.replace(/%.*$/, ''));
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

/** The eight 16-bit groups of an IPv6 address (lower-case, no leading zeros), or null when it is not one. */
function ipv6Groups(address: string): string[] | null {
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s ? s.split(':').flatMap((g) => (g.includes('.') ? ['v4', 'v4'] : [g])) : []);
  const [head, tail] = [part(halves[0]), part(halves[1] ?? '')];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const all = [...head, ...Array<string>(Math.max(0, missing)).fill('0'), ...tail];
  if (!all.every((g) => g === 'v4' || /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => (g === 'v4' ? g : g.replace(/^0+(?=.)/, '')));
}

/** Closes at once every connection beyond `max` from one client (clientKey); counts each until it closes. */
export function limitConnectionsPerAddress(server: Server, max = MAX_CONNECTIONS_PER_ADDRESS): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const key = clientKey(socket.remoteAddress);
    const held = open.get(key) ?? 0;
    if (held >= max) {
      socket.destroy();
      return;
    }
    open.set(key, held + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
