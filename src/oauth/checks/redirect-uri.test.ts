/** SPEC §5.1 redirect URI registration rules. */
import { describe, expect, test } from 'vitest';
import { isRegisteredRedirectUri, redirectUriProblem, webOrigin } from './redirect-uri.ts';

describe('redirectUriProblem', () => {
  test.each([
    'https://wiki.example.org/callback',
    'https://wiki.example.org/cb?tenant=1',
    'http://127.0.0.1:3000/callback',
    'http://localhost/cb',
    'http://[::1]:8080/cb',
    'com.example.app:/oauth2redirect',
    'org.foodsharing.app://callback',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  test.each([
    ['', 'must not be empty'],
    ['/relative/path', 'must be an absolute URL'],
    ['https://app.example/cb#fragment', 'must not contain a fragment (#)'],
    ['http://app.example/cb', 'must use https (http only for 127.0.0.1, [::1] or localhost)'],
    ['https://user:pw@app.example/cb', 'must not contain a user name or password'],
    ['https://app.example/c b', 'must not contain spaces or control characters'],
    ['javascript:alert(1)', 'must use https, http on a loopback host, or a reverse-domain scheme of a native app (com.example.app:/callback)'],
    ['myapp:/callback', 'must use https, http on a loopback host, or a reverse-domain scheme of a native app (com.example.app:/callback)'],
    [`https://app.example/${'a'.repeat(2000)}`, 'must be at most 2000 characters'],
  ])('refuses %s', (uri, message) => {
    expect(redirectUriProblem(uri)).toBe(message);
  });

  test('web origins for CORS; none for native schemes', () => {
    expect(webOrigin('https://spa.example:8443/cb?x=1')).toBe('https://spa.example:8443');
    expect(webOrigin('com.example.app:/cb')).toBeUndefined();
  });
});

describe('isRegisteredRedirectUri', () => {
  const registered = ['https://app.example/cb', 'com.example.app:/cb'];
  test.each([
    ['https://app.example/cb', true],
    ['com.example.app:/cb', true],
    ['https://app.example/cb/', false],
    ['https://APP.example/cb', false],
    ['https://app.example/cb?x=1', false],
    [undefined, false],
    [['https://app.example/cb'], false],
  ])('%j: %s (exact string match only, SPEC §5.2 step 2)', (uri, registeredUri) => {
    expect(isRegisteredRedirectUri(registered, uri, { confidential: true })).toBe(registeredUri);
    expect(isRegisteredRedirectUri(registered, uri, { confidential: false })).toBe(registeredUri);
  });
});

describe('isRegisteredRedirectUri: a public client\'s loopback IP literals match any port (RFC 8252 §7.3)', () => {
  const registered = ['http://127.0.0.1/callback', 'http://[::1]:8080/cb?app=1', 'http://localhost:3000/cb'];
  test.each([
    ['http://127.0.0.1/callback', true],
    ['http://127.0.0.1:51004/callback', true],
    ['http://127.0.0.1:1/callback', true],
    ['http://127.0.0.1:65535/callback', true],
    ['http://[::1]/cb?app=1', true],
    ['http://[::1]:49152/cb?app=1', true],
    ['http://127.0.0.1:51004/callback/', false],
    ['http://127.0.0.1:51004/callback?x=1', false],
    ['http://127.0.0.1:65536/callback', false],
    ['http://127.0.0.1:0/callback', false],
    ['http://127.0.0.1:051004/callback', false],
    ['https://127.0.0.1:51004/callback', false],
    ['http://127.0.0.2:51004/callback', false],
    ['http://[::1]:49152/cb?app=2', false],
    ['http://[::1]:49152/cb', false],
    ['http://127.0.0.1:51004@evil.example/callback', false],
    ['http://localhost:3001/cb', false],
    ['http://localhost:3000/cb', true],
  ])('%s: %s', (uri, matches) => {
    expect(isRegisteredRedirectUri(registered, uri, { confidential: false })).toBe(matches);
  });

  test.each([
    ['http://127.0.0.1/callback', true],
    ['http://[::1]:8080/cb?app=1', true],
    ['http://localhost:3000/cb', true],
    ['http://127.0.0.1:51004/callback', false],
    ['http://[::1]/cb?app=1', false],
    ['http://[::1]:49152/cb?app=1', false],
  ])('a confidential client (a web server, whose port does not move): %s only as registered: %s', (uri, matches) => {
    expect(isRegisteredRedirectUri(registered, uri, { confidential: true })).toBe(matches);
  });
});
