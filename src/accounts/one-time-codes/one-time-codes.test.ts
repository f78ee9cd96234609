import { createSecretKey } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, test } from 'vitest';
import { digestRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes.ts';
import { openSecret, sealSecret } from './secret-box.ts';
import { acceptedTimeStep, newTotpSecret, otpauthUri, timeStepAt } from './totp.ts';

const AT = new Date('2026-03-02T09:00:10Z');
const code = (secret: string, at: Date) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() });

describe('TOTP (RFC 6238)', () => {
  const secret = newTotpSecret();

  test('a 160-bit base32 secret and the otpauth URI of authenticator apps', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri(secret, 'https://id.example', 'ada@example.org')).toBe(`otpauth://totp/id.example:ada%40example.org?issuer=id.example&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
    // The Key Uri Format allows no colon in the issuer (apps split the label at the first): no port.
    expect(otpauthUri(secret, 'https://id.example:8443/', 'ada@example.org')).toBe(`otpauth://totp/id.example:ada%40example.org?issuer=id.example&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
  });

  test('the RFC 6238 Appendix B vector (SHA-1, T = 59 s): 94287082 has the six digits 287082', () => {
    const rfcSecret = Secret.fromLatin1('12345678901234567890').base32;
    expect(acceptedTimeStep(rfcSecret, '287082', new Date(59_000), null)).toBe(1);
  });

  test('accepted one step either side of now, with spaces; never at or before the last accepted step', () => {
    const step = timeStepAt(AT);
    expect(acceptedTimeStep(secret, code(secret, AT), AT, null)).toBe(step);
    expect(acceptedTimeStep(secret, code(secret, new Date(AT.getTime() - 30_000)), AT, null)).toBe(step - 1);
    expect(acceptedTimeStep(secret, code(secret, new Date(AT.getTime() + 30_000)), AT, null)).toBe(step + 1);
    expect(acceptedTimeStep(secret, code(secret, new Date(AT.getTime() - 60_000)), AT, null)).toBeUndefined();
    const spaced = code(secret, AT).replace(/^(\d{3})/, '$1 ');
    expect(acceptedTimeStep(secret, spaced, AT, step - 1)).toBe(step);
    expect(acceptedTimeStep(secret, code(secret, AT), AT, step)).toBeUndefined();
    expect(acceptedTimeStep(secret, '12345', AT, null)).toBeUndefined();
    expect(acceptedTimeStep(secret, 'abcdef', AT, null)).toBeUndefined();
  });
});

describe('secret box (AES-256-GCM)', () => {
  const key = createSecretKey(new Uint8Array(32).fill(3));

  test('opens for the same key and member only; a changed byte fails', () => {
    const box = sealSecret(key, 7, 'JBSWY3DPEHPK3PXP');
    expect(openSecret(key, 7, box)).toBe('JBSWY3DPEHPK3PXP');
    expect(openSecret(key, 8, box)).toBeUndefined();
    expect(openSecret(createSecretKey(new Uint8Array(32).fill(4)), 7, box)).toBeUndefined();
    const changed = Buffer.from(box);
    changed[14]! ^= 1;
    expect(openSecret(key, 7, changed)).toBeUndefined();
    expect(openSecret(key, 7, Buffer.alloc(10))).toBeUndefined();
  });
});

describe('recovery codes', () => {
  test('ten different codes of three groups; read in any case, with spaces or dashes', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}$/);
    expect(normalizeRecoveryCode(' ABCD efgh-JKMN ')).toBe('abcdefghjkmn');
    expect(normalizeRecoveryCode('abcd-efgh-ijkl')).toBeUndefined();
    expect(normalizeRecoveryCode('123456')).toBeUndefined();
  });

  test('digests are keyed and bound to the member', () => {
    const key = createSecretKey(new Uint8Array(32).fill(1));
    expect(digestRecoveryCode(key, 1, 'abcdefghjkmn').equals(digestRecoveryCode(key, 1, 'abcdefghjkmn'))).toBe(true);
    expect(digestRecoveryCode(key, 2, 'abcdefghjkmn').equals(digestRecoveryCode(key, 1, 'abcdefghjkmn'))).toBe(false);
    expect(digestRecoveryCode(createSecretKey(new Uint8Array(32)), 1, 'abcdefghjkmn').equals(digestRecoveryCode(key, 1, 'abcdefghjkmn'))).toBe(false);
  });
});
