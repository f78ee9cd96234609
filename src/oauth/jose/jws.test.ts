import { createHmac, generateKeyPairSync } from 'node:crypto';
import { compactVerify, importSPKI, SignJWT, importPKCS8 } from 'jose';
import { describe, expect, test } from 'vitest';
import { encodeSegment, isMediaType, isValidRs256Signature, parseJws, signRs256 } from './jws.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const header = encodeSegment({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' });

describe('RS256 compact JWS on node:crypto', () => {
  test('what it signs, jose verifies (RFC 7515 interop)', async () => {
    const token = await signRs256(header, { sub: '1', scope: 'openid ü' }, privateKey);
    const key = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'RS256');
    const { payload, protectedHeader } = await compactVerify(token, key);
    expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: '1', scope: 'openid ü' });
  });

  test('what jose signs, it verifies', async () => {
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const token = await new SignJWT({ a: 1 }).setProtectedHeader({ alg: 'RS256' }).sign(await importPKCS8(pem, 'RS256'));
    const jws = parseJws(token)!;
    expect(jws.payload).toEqual({ a: 1 });
    expect(isValidRs256Signature(jws, publicKey)).toBe(true);
  });

  test('a changed payload, another key, or an HMAC made with the public key fail', async () => {
    const token = await signRs256(header, { sub: '1' }, privateKey);
    const [h, , s] = token.split('.');
    const forged = parseJws(`${h}.${encodeSegment({ sub: '2' })}.${s}`)!;
    expect(isValidRs256Signature(forged, publicKey)).toBe(false);
    expect(isValidRs256Signature(parseJws(token)!, other.publicKey)).toBe(false);
    // RFC 8725 §2.1 "algorithm confusion": an HS256 MAC keyed with the public key is no RS256 signature.
    const input = `${encodeSegment({ alg: 'HS256' })}.${encodeSegment({ sub: '1' })}`;
    const mac = createHmac('sha256', publicKey.export({ type: 'spki', format: 'pem' })).update(input).digest('base64url');
    expect(isValidRs256Signature(parseJws(`${input}.${mac}`)!, publicKey)).toBe(false);
  });

  test.each([
    ['two parts', 'a.b'],
    ['an empty signature', `${header}.${encodeSegment({})}.`],
    ['characters outside base64url', `${header}.${encodeSegment({})}.a+b`],
    ['a payload that is not an object', `${header}.${Buffer.from('[1]').toString('base64url')}.AA`],
    ['a header that is not JSON', `${Buffer.from('{').toString('base64url')}.${encodeSegment({})}.AA`],
  ])('parseJws refuses %s', (_name, token) => {
    expect(parseJws(token)).toBeUndefined();
  });

  test('media types compare case-insensitively, with or without application/ (RFC 8725 §3.11)', () => {
    expect(isMediaType('at+jwt', 'at+jwt')).toBe(true);
    expect(isMediaType('Application/AT+JWT', 'at+jwt')).toBe(true);
    expect(isMediaType('JWT', 'at+jwt')).toBe(false);
    expect(isMediaType(undefined, 'at+jwt')).toBe(false);
  });
});
