/**
 * Key material (SPEC §3): the RSA signing key and the 256-bit encryption key,
 * taken from configuration or, when none is configured, generated once into
 * `<DATA_DIR>/keys/` with mode 0600 and reused on every later start. Several
 * instances must share keys through configuration, not generate their own.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createPrivateKey, randomBytes } from 'node:crypto';
import path from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import { ConfigError, type Config } from '../../config.ts';

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

/**
 * Reads, checks and (when not configured) generates the keys. Runs before the
 * database is opened: a bad key stops the start with one {@link ConfigError}
 * line naming the variable or file, not a late failure at the first token.
 */
export async function loadKeyMaterial(config: Config): Promise<KeyMaterial> {
  const keysDir = path.join(config.dataDir, 'keys');
  const signing = signingKeySource(config, keysDir);
  const encryption = encryptionKeySource(config, keysDir);
  const problems: string[] = [];
  // Configured keys first: nothing is generated for a configuration that is refused.
  let signingKeyPem = signing.generated ? undefined : await readKey(signing, toSigningKeyPem, problems);
  let encryptionKey = encryption.generated ? undefined : await readKey(encryption, config.isProduction ? toRandomEncryptionKey : toEncryptionKey, problems);
  if (problems.length === 0) {
    signingKeyPem ??= await readKey(signing, toSigningKeyPem, problems);
    encryptionKey ??= await readKey(encryption, toEncryptionKey, problems);
  }
  if (signingKeyPem === undefined || encryptionKey === undefined) throw new ConfigError(problems);
  return { signingKeyPem, encryptionKey, generatedIn: signing.generated || encryption.generated ? keysDir : undefined };
}

/** The files under `<DATA_DIR>/keys/` this configuration generates and uses (none for a key set by a variable or file). */
export function generatedKeyFiles(config: Config): string[] {
  const keysDir = path.join(config.dataDir, 'keys');
  return [
    ...(signingKeySource(config, keysDir).generated ? [SIGNING_KEY_FILE] : []),
    ...(encryptionKeySource(config, keysDir).generated ? [ENCRYPTION_KEY_FILE] : []),
  ];
}

/**
 * The encryption key this configuration uses, generating none: the configured one, else the text of
 * the generated file given (`generatedText`, undefined when there is none). Throws {@link ConfigError}
 * for a key that cannot be read or is malformed.
 */
export async function existingEncryptionKey(config: Config, generatedText: string | undefined): Promise<Uint8Array | undefined> {
  const source = encryptionKeySource(config, path.join(config.dataDir, 'keys'));
  if (source.generated && generatedText === undefined) return undefined;
  const problems: string[] = [];
  const key = await readKey(source.generated ? { ...source, read: async () => generatedText! } : source, toEncryptionKey, problems);
  if (key === undefined) throw new ConfigError(problems);
  return key;
}

interface KeySource {
  /** How a problem names it: the variable, or the generated file. */
  readonly label: string;
  readonly generated: boolean;
  read(): Promise<string>;
}

function signingKeySource(config: Config, keysDir: string): KeySource {
  const { oauthPrivateKey: inline, oauthPrivateKeyFile: file } = config;
  if (inline !== undefined) return { label: 'OAUTH_PRIVATE_KEY', generated: false, read: async () => inline.replace(/\\n/g, '\n') };
  if (file !== undefined) return { label: `OAUTH_PRIVATE_KEY_FILE=${file}`, generated: false, read: () => readFile(file, 'utf8') };
  const generatedFile = path.join(keysDir, SIGNING_KEY_FILE);
  return { label: generatedFile, generated: true, read: () => readOrCreate(generatedFile, async () => {
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: config.rsaKeyBits, extractable: true });
    return exportPKCS8(privateKey);
  }) };
}

function encryptionKeySource(config: Config, keysDir: string): KeySource {
  const { oauthEncryptionKey: inline, oauthEncryptionKeyFile: file } = config;
  if (inline !== undefined) return { label: 'OAUTH_ENCRYPTION_KEY', generated: false, read: async () => inline };
  if (file !== undefined) return { label: `OAUTH_ENCRYPTION_KEY_FILE=${file}`, generated: false, read: () => readFile(file, 'utf8') };
  const generatedFile = path.join(keysDir, ENCRYPTION_KEY_FILE);
  return { label: generatedFile, generated: true, read: () => readOrCreate(generatedFile, async () => `${randomBytes(32).toString('base64url')}\n`) };
}

async function readKey<T>(source: KeySource, parse: (text: string) => T, problems: string[]): Promise<T | undefined> {
  try {
    return parse(await source.read());
  } catch (error) {
    problems.push(`${source.label} ${error instanceof KeyProblem ? error.message : `cannot be read: ${describeReadError(error)}`}`);
    return undefined;
  }
}

class KeyProblem extends Error {}

/** An RSA private key (PKCS#8 or PKCS#1 PEM) of at least 2048 bits, returned as PKCS#8 PEM. */
function toSigningKeyPem(pem: string): string {
  let key;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new KeyProblem('is not a PEM-encoded private key (PKCS#8 or PKCS#1, unencrypted)');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new KeyProblem(`holds a ${key.asymmetricKeyType ?? 'non-RSA'} key; RS256 needs an RSA key`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) throw new KeyProblem(`holds a ${bits}-bit RSA key; at least 2048 bits are required`);
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function toEncryptionKey(text: string): Uint8Array {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed) || key.length !== 32) {
    throw new KeyProblem('must hold 32 bytes in base64 or base64url (openssl rand -base64 32)');
  }
  return key;
}

/**
 * In production, a configured key must also look random: 32 random bytes take 16 or more different values
 * (fewer happens about once in 3 × 10^16 keys), a placeholder (`AAAA…`, all zeros, one byte repeated) does not.
 * The key encrypts refresh tokens and derives the keys of Web Push, DPoP nonces and the device cookies.
 */
function toRandomEncryptionKey(text: string): Uint8Array {
  const key = toEncryptionKey(text);
  const values = new Set(key).size;
  if (values < MIN_KEY_BYTE_VALUES) {
    throw new KeyProblem(`is not a random key (its 32 bytes take only ${values} different value${values === 1 ? '' : 's'}): generate one with openssl rand -base64 32`);
  }
  return key;
}

const MIN_KEY_BYTE_VALUES = 16;

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return error instanceof Error ? error.message : String(error);
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
