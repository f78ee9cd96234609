/**
 * The VAPID key pair for web push (RFC 8292): from `VAPID_PUBLIC_KEY` /
 * `VAPID_PRIVATE_KEY` (base64url, as web-push prints them), or generated once
 * into `<DATA_DIR>/keys/vapid-key.json` (mode 0600) beside the other keys and
 * reused on every later start. Several instances share it by configuration.
 */
import { createECDH, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.ts';

export const VAPID_KEY_FILE = 'vapid-key.json';

export interface VapidKeys {
  /** base64url of the 65-byte uncompressed P-256 point (0x04 || x || y). */
  readonly publicKey: string;
  /** base64url of the 32-byte private scalar. */
  readonly privateKey: string;
}

/**
 * The configured pair, or the generated one. Throws (stopping the start) when
 * a key is malformed or the public key is not the private key's: push
 * services would then refuse every message the server signs.
 */
export async function loadVapidKeys(config: Config): Promise<VapidKeys> {
  if (config.vapidPublicKey !== undefined && config.vapidPrivateKey !== undefined) {
    return checkedKeys(config.vapidPublicKey, config.vapidPrivateKey, 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY');
  }
  const file = path.join(config.dataDir, 'keys', VAPID_KEY_FILE);
  const jwk = JSON.parse(await readOrCreate(file, () => JSON.stringify(generateJwk()))) as JsonWebKey;
  return checkedKeys(publicKeyOf(jwk), jwk.d ?? '', file);
}

function generateJwk(): JsonWebKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ format: 'jwk' });
}

function publicKeyOf(jwk: JsonWebKey): string {
  const x = Buffer.from(jwk.x ?? '', 'base64url');
  const y = Buffer.from(jwk.y ?? '', 'base64url');
  return Buffer.concat([Buffer.from([4]), x, y]).toString('base64url');
}

function checkedKeys(publicKey: string, privateKey: string, source: string): VapidKeys {
  const point = Buffer.from(publicKey, 'base64url');
  const scalar = Buffer.from(privateKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4 || scalar.length !== 32) {
    throw new Error(`VAPID keys (${source}) must be a base64url 65-byte uncompressed P-256 public key (VAPID_PUBLIC_KEY) `
      + 'and a 32-byte private key (VAPID_PRIVATE_KEY)');
  }
  const derived = publicPointOf(scalar, source);
  if (!derived.equals(point)) {
    throw new Error(`VAPID keys (${source}) do not belong together: VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY `
      + `(that would be ${b64u(derived)})`);
  }
  return { publicKey: b64u(point), privateKey };
}

/** The uncompressed public point of a P-256 private scalar. */
function publicPointOf(scalar: Buffer, source: string): Buffer {
  const ecdh = createECDH('prime256v1');
  try {
    ecdh.setPrivateKey(scalar);
  } catch {
    throw new Error(`VAPID keys (${source}): VAPID_PRIVATE_KEY is not a valid P-256 private key`);
  }
  return ecdh.getPublicKey();
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

async function readOrCreate(file: string, create: () => string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, create(), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  await chmod(file, 0o600);
  return readFile(file, 'utf8');
}
