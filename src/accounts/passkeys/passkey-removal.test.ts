import { describe, expect, it } from 'vitest';
import { hashPassword } from '../passwords.ts';
import { isUsablePasswordHash, mayRemovePasskey } from './passkey-removal.ts';

describe('removing a passkey', () => {
  it.each([
    { passkeys: 1, hasUsablePassword: true, allowed: true },
    { passkeys: 3, hasUsablePassword: true, allowed: true },
    { passkeys: 2, hasUsablePassword: false, allowed: true },
    { passkeys: 1, hasUsablePassword: false, allowed: false },
  ])('$passkeys passkey(s), usable password $hasUsablePassword: allowed $allowed', ({ allowed, ...account }) => {
    expect(mayRemovePasskey(account)).toBe(allowed);
  });

  it('an Argon2 hash is a usable password; a marker that verifies nothing is not', async () => {
    expect(isUsablePasswordHash(await hashPassword('a long enough password'))).toBe(true);
    for (const marker of ['!', '', '*', 'disabled']) expect(isUsablePasswordHash(marker)).toBe(false);
  });
});
