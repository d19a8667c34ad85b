import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '@shop/core/testing';
import {
  clientKey,
  limitConnectionsPerAddress,
  MAX_CONNECTIONS,
  MAX_CONNECTIONS_PER_ADDRESS,
} from './connection-limits.js';

describe('clientKey', () => {
  it('an IPv4 address as it is, also when mapped into IPv6; an IPv6 address by its /64', () => {
    expect(clientKey('127.0.0.2')).toBe('127.0.0.2');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:0DB8:0000:0001:bbbb:cccc:dddd:eeee')).toBe('2001:db8:0:1::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('64:ff9b::192.0.2.7')).toBe('64:ff9b:0:0::/64');
    expect(clientKey(undefined)).toBe('?');
  });

  it('one address cannot hold the server: its share is well below the server’s cap', () => {
    expect(MAX_CONNECTIONS_PER_ADDRESS * 10).toBeLessThanOrEqual(MAX_CONNECTIONS);
  });
});

describe('limitConnectionsPerAddress', () => {
  let server: Server | null = null;
  const sockets: Socket[] = [];
  afterEach(async () => {
    sockets.splice(0).forEach((s) => s.destroy());
    await new Promise((r) => server?.close(r) ?? r(null));
  });

  /** A connection from `from`: whether the server kept it past a moment, or closed it at once. */
  function open(port: number, from: string): Promise<'kept' | 'closed'> {
    return new Promise((resolve) => {
      const s = connect({ port, host: '127.0.0.1', localAddress: from });
      sockets.push(s);
      s.on('error', () => undefined);
      s.on('close', () => resolve('closed'));
      s.on('connect', () => setTimeout(() => resolve('kept'), 150));
    });
  }

  it('closes each connection beyond the share of its address at once; other addresses still connect; a closed one frees its place', async () => {
    server = createServer();
    limitConnectionsPerAddress(server, 3);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    expect(await Promise.all([1, 2, 3, 4, 5].map(() => open(port, '127.0.0.2')))).toEqual([
      'kept',
      'kept',
      'kept',
      'closed',
      'closed',
    ]);
    expect(await open(port, '127.0.0.1')).toBe('kept');
    sockets[0].destroy();
    // The server sees the close a moment later; till then a fourth is closed at once (taking no place).
    expect(
      await until('the closed one to free its place', async () => (await open(port, '127.0.0.2')) === 'kept', 2_000),
    ).toBe(true);
    expect(await open(port, '127.0.0.2')).toBe('closed');
  });
});
