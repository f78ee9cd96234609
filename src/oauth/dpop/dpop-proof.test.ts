import { describe, expect, it } from 'vitest';
import { isSameUri } from './dpop-proof.ts';

describe('isSameUri: htu against the endpoint (RFC 9449 §4.3, RFC 3986 §6.2.2)', () => {
  it.each([
    ['the same URI', 'https://id.example.org/oauth/token', 'https://id.example.org/oauth/token', true],
    ['a query and fragment', 'https://id.example.org/oauth/token?x=1#f', 'https://id.example.org/oauth/token', true],
    ['case of scheme and host, default port, dot segment', 'HTTPS://ID.example.org:443/oauth/./token', 'https://id.example.org/oauth/token', true],
    ['an unreserved character escaped', 'https://id.example.org/oauth/%74oken', 'https://id.example.org/oauth/token', true],
    ['an endpoint whose own path holds an escape, named exactly', 'https://id.example.org/%7eauth/oauth/token', 'https://id.example.org/%7eauth/oauth/token', true],
    ['the same, with the escape decoded', 'https://id.example.org/~auth/oauth/token', 'https://id.example.org/%7Eauth/oauth/token', true],
    ['an escaped slash in lower-case hex', 'https://id.example.org/a%2fb/token', 'https://id.example.org/a%2Fb/token', true],
    ['an escaped slash is no slash', 'https://id.example.org/oauth%2Ftoken', 'https://id.example.org/oauth/token', false],
    ['another path', 'https://id.example.org/oauth/userinfo', 'https://id.example.org/oauth/token', false],
    ['another case of the path', 'https://id.example.org/oauth/Token', 'https://id.example.org/oauth/token', false],
    ['not a URL', 'token', 'https://id.example.org/oauth/token', false],
  ])('%s', (_name, htu, expected, same) => {
    expect(isSameUri(htu, expected)).toBe(same);
  });
});
