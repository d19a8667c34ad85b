import type { NetworkInterfaceInfo } from 'node:os';

/** Addresses that mean "every interface": a server bound there is reached by the machine's own addresses, never by these. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

export const isWildcard = (host: string) => WILDCARD.has(host);

const inUrl = (address: string) => (address.includes(':') ? `[${address}]` : address);

/**
 * The addresses a person can open for a server bound to `host` on `port`: the host itself, or —
 * bound to every interface — this machine's addresses, network ones first and loopback last
 * (0.0.0.0 is IPv4 only; `::` takes IPv6 too, but not link-local addresses, which need a zone
 * a browser's address bar does not take). These are the names `shop serve` accepts in a Host
 * header when bound so; a host name it does not, so none is guessed.
 */
export function reachableUrls(host: string, port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  if (!isWildcard(host)) return [`http://${inUrl(host)}:${port}`];
  const v6 = host !== '0.0.0.0';
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const usable = all.filter((a) => a.family === 'IPv4' || (v6 && a.family === 'IPv6' && !/^fe[89ab]/i.test(a.address)));
  const ordered = [
    ...usable.filter((a) => !a.internal && a.family === 'IPv4'),
    ...usable.filter((a) => !a.internal && a.family === 'IPv6'),
  ].map((a) => a.address);
  return [...new Set([...ordered, '127.0.0.1'])].map((a) => `http://${inUrl(a)}:${port}`);
}
