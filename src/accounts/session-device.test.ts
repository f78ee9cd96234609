import { describe, expect, test } from 'vitest';
import { describeDevice, networkOf, sessionDevice } from './session-device.ts';

describe('networkOf: the client address shortened', () => {
  test.each([
    ['203.0.113.7', '203.0.113.0/24'],
    ['::ffff:203.0.113.7', '203.0.113.0/24'],
    ['2001:db8:1:2::9', '2001:db8:1::/48'],
    ['fe80::1%eth0', 'fe80:0:0::/48'],
    ['127.0.0.1', '127.0.0.0/24'],
    ['not an address', null],
    ['', null],
  ])('%s → %s', (ip, network) => {
    expect(networkOf(ip)).toBe(network);
  });
});

describe('describeDevice', () => {
  test('a desktop Firefox on Windows', () => {
    expect(describeDevice('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'))
      .toEqual({ browser: 'Firefox 133', system: 'Windows 10', kind: 'desktop' });
  });

  test('Safari on an iPhone', () => {
    expect(describeDevice('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'))
      .toEqual({ browser: 'Mobile Safari 17', system: 'iOS 17.5', kind: 'mobile' });
  });

  test('no User-Agent, or one naming no browser', () => {
    expect(describeDevice(null)).toEqual({ browser: undefined, system: undefined, kind: 'unknown' });
    expect(describeDevice('curl/8.0')).toEqual({ browser: undefined, system: undefined, kind: 'unknown' });
  });
});

test('sessionDevice stores at most 512 characters of the User-Agent', () => {
  expect(sessionDevice('x'.repeat(600), '198.51.100.20')).toEqual({ userAgent: 'x'.repeat(512), network: '198.51.100.0/24' });
  expect(sessionDevice(undefined, '::1')).toEqual({ userAgent: null, network: '0:0:0::/48' });
});
