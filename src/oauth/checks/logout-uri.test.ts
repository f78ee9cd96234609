import { describe, expect, test } from 'vitest';
import { backchannelLogoutUriProblem } from './logout-uri.ts';

describe('back-channel logout URI', () => {
  test.each([
    'https://wiki.example.org/backchannel-logout',
    'https://wiki.example.org:8443/logout?tenant=1',
    'http://127.0.0.1:3000/logout',
    'http://[::1]:3000/logout',
    'http://localhost/logout',
  ])('%s is accepted', (uri) => {
    expect(backchannelLogoutUriProblem(uri)).toBeUndefined();
  });

  test.each([
    ['http://wiki.example.org/logout', 'must use https (http only for 127.0.0.1, [::1] or localhost)'],
    ['https://wiki.example.org/logout#x', 'must not contain a fragment (#)'],
    ['/logout', 'must be an absolute URL'],
    ['https://user:pw@wiki.example.org/logout', 'must not contain a user name or password'],
    ['com.example.app:/logout', 'must use https (http only for 127.0.0.1, [::1] or localhost)'],
    ['https://wiki.example.org/log out', 'must not contain spaces or control characters'],
    [`https://wiki.example.org/${'a'.repeat(2000)}`, 'must be at most 2000 characters'],
  ])('%s is refused: %s', (uri, problem) => {
    expect(backchannelLogoutUriProblem(uri)).toBe(problem);
  });
});
