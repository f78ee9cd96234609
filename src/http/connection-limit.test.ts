import { describe, expect, it } from 'vitest';
import { clientAddress, clientCounterKey } from './connection-limit.ts';

describe('clientAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['1:2::3:4:5:6:7', '1:2:0:3::/64'],
    ['64:ff9b::1.2.3.4', '64:ff9b:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (remoteAddress, counted) => {
    expect(clientAddress(remoteAddress)).toBe(counted);
  });
});

describe('clientCounterKey', () => {
  it('is the client address, with a NUL (which PostgreSQL text cannot hold) replaced', () => {
    expect(clientCounterKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientCounterKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientCounterKey('bad\u0000address')).toBe('bad\uFFFDaddress');
  });
});
