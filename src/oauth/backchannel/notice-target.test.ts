/** Where a logout notice may go: https; http on loopback outside production; public addresses only in production. */
import { describe, expect, it } from 'vitest';
import { noticeTargetPolicy } from './notice-target.ts';

const development = noticeTargetPolicy(false);
const production = noticeTargetPolicy(true);

describe('logout notice targets', () => {
  it.each([
    'https://rp.example.org/backchannel', 'http://127.0.0.1:3000/bc', 'http://localhost:3000/bc', 'http://[::1]:3000/bc',
  ])('outside production may send to %s', (uri) => {
    expect(development.refusal(uri)).toBeUndefined();
  });

  it.each([
    ['http://rp.example.org/bc', 'neither https nor http on a loopback host'],
    ['ftp://rp.example.org/bc', 'neither https nor http on a loopback host'],
    ['https://user:secret@rp.example.org/bc', 'a URL with credentials'],
    ['/relative', 'not an absolute URL'],
  ])('outside production refuses %s', (uri, refusal) => {
    expect(development.refusal(uri)).toBe(refusal);
  });

  it('in production: https only, and only to public addresses', () => {
    expect(production.refusal('https://rp.example.org/bc')).toBeUndefined();
    expect(production.refusal('http://127.0.0.1:3000/bc')).toBe('not https');
    expect(production.refusal('http://rp.example.org/bc')).toBe('not https');
    for (const address of ['127.0.0.1', '::1', '10.1.2.3', '192.168.0.10', '169.254.169.254', 'fd00::1']) {
      expect(production.isAllowedAddress(address), address).toBe(false);
    }
    expect(production.isAllowedAddress('93.184.216.34')).toBe(true);
    expect(development.isAllowedAddress('127.0.0.1')).toBe(true);
  });
});
