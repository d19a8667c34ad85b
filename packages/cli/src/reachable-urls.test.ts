import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { reachableUrls } from './reachable-urls.js';

const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false) =>
  ({ address, family, internal }) as NetworkInterfaceInfo;
const machine = {
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  eth0: [nic('192.0.2.2', 'IPv4'), nic('fd00::2', 'IPv6'), nic('fe80::fc:ff:fe00:1', 'IPv6')],
  wlan0: [nic('10.1.2.3', 'IPv4')],
};

describe('reachableUrls: where a person opens shop serve', () => {
  it('bound to 0.0.0.0: the IPv4 network addresses, then loopback — never 0.0.0.0', () => {
    expect(reachableUrls('0.0.0.0', 7878, machine)).toEqual([
      'http://192.0.2.2:7878',
      'http://10.1.2.3:7878',
      'http://127.0.0.1:7878',
    ]);
  });

  it('bound to ::: IPv6 network addresses too (not link-local ones), never [::]', () => {
    for (const host of ['::', '[::]']) {
      expect(reachableUrls(host, 80, machine)).toEqual([
        'http://192.0.2.2:80',
        'http://10.1.2.3:80',
        'http://[fd00::2]:80',
        'http://127.0.0.1:80',
      ]);
    }
  });

  it('a machine with no network: this machine only', () => {
    expect(reachableUrls('0.0.0.0', 7878, { lo: machine.lo })).toEqual(['http://127.0.0.1:7878']);
  });

  it('bound to one address: that address', () => {
    expect(reachableUrls('127.0.0.1', 7878, machine)).toEqual(['http://127.0.0.1:7878']);
    expect(reachableUrls('192.0.2.2', 9, machine)).toEqual(['http://192.0.2.2:9']);
    expect(reachableUrls('fd00::2', 9, machine)).toEqual(['http://[fd00::2]:9']);
  });
});
