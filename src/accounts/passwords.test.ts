import { hash } from '@node-rs/argon2';
import { describe, expect, test } from 'vitest';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './passwords.ts';

const NFC = 'Käsebrötchen am Morgen'.normalize('NFC');
const NFD = NFC.normalize('NFD');

describe('passwords in NFKC (NIST SP 800-63B §5.1.1.2)', () => {
  test('one password however its characters are composed: set in NFC, it verifies in NFD and NFC; compatibility forms too', async () => {
    expect(NFC).not.toBe(NFD);
    const stored = await hashPassword(NFC);
    expect(await verifyPassword(stored, NFD)).toBe(true);
    expect(await verifyPassword(stored, NFC)).toBe(true);
    expect(await verifyPassword(stored, 'Käsebrötchen am Morgen!')).toBe(false);
    // U+FB01 LATIN SMALL LIGATURE FI and full-width letters are their plain letters in NFKC.
    const ligature = await hashPassword('\uFB01ve o\u2019clock tea');
    expect(await verifyPassword(ligature, 'five o\u2019clock tea')).toBe(true);
    expect(await verifyPassword(await hashPassword('ｐａｓｓ ｐｈｒａｓｅ'), 'pass phrase')).toBe(true);
  });

  test('a hash made before normalisation, of the password as typed (NFD), still verifies it', async () => {
    const old = await hash(NFD); // as hashPassword made it then: Argon2id of the string as typed
    expect(await verifyPassword(old, NFD)).toBe(true);
    expect(await verifyPassword(old, `${NFD}x`)).toBe(false);
  });

  test('a hash that is none verifies nothing; the dummy never does', async () => {
    expect(await verifyPassword('!', NFD)).toBe(false);
    expect(await verifyAgainstDummy(NFD)).toBe(false);
  });
});
