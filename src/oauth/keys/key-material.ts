/**
 * Key material (SPEC §3): the RSA signing key and the 256-bit encryption key,
 * taken from configuration or, when none is configured, generated once into
 * `<DATA_DIR>/keys/` with mode 0600 and reused on every later start. Several
 * instances must share keys through configuration, not generate their own.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import type { Config } from '../../config.ts';

export interface KeyMaterial {
  /** PEM (PKCS#8) of the initial RSA signing key. */
  readonly signingKeyPem: string;
  /** 32 bytes: refresh-token encryption and other keyed digests. */
  readonly encryptionKey: Uint8Array;
  /** Where generated keys were written, or undefined when all came from configuration. */
  readonly generatedIn: string | undefined;
}

export const SIGNING_KEY_FILE = 'signing-key.pem';
export const ENCRYPTION_KEY_FILE = 'encryption.key';

export async function loadKeyMaterial(config: Config): Promise<KeyMaterial> {
  const keysDir = path.join(config.dataDir, 'keys');
  let generatedIn: string | undefined;

  let signingKeyPem = config.oauthPrivateKey?.replace(/\\n/g, '\n');
  if (signingKeyPem === undefined && config.oauthPrivateKeyFile !== undefined) {
    signingKeyPem = await readFile(config.oauthPrivateKeyFile, 'utf8');
  }
  if (signingKeyPem === undefined) {
    signingKeyPem = await readOrCreate(path.join(keysDir, SIGNING_KEY_FILE), async () => {
      const { privateKey } = await generateKeyPair('RS256', { modulusLength: config.rsaKeyBits, extractable: true });
      return exportPKCS8(privateKey);
    });
    generatedIn = keysDir;
  }

  let encryptionKeyText = config.oauthEncryptionKey;
  if (encryptionKeyText === undefined && config.oauthEncryptionKeyFile !== undefined) {
    encryptionKeyText = (await readFile(config.oauthEncryptionKeyFile, 'utf8')).trim();
  }
  if (encryptionKeyText === undefined) {
    encryptionKeyText = (await readOrCreate(path.join(keysDir, ENCRYPTION_KEY_FILE),
      async () => `${randomBytes(32).toString('base64url')}\n`)).trim();
    generatedIn = keysDir;
  }
  const encryptionKey = Buffer.from(encryptionKeyText, 'base64');
  if (encryptionKey.length !== 32) throw new Error('the encryption key must be 32 bytes (base64)');
  return { signingKeyPem, encryptionKey, generatedIn };
}

async function readOrCreate(file: string, create: () => Promise<string>): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const content = await create();
  try {
    await writeFile(file, content, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFile(file, 'utf8');
    throw error;
  }
  await chmod(file, 0o600);
  return content;
}
