/**
 * The VAPID key pair for web push (RFC 8292): from `VAPID_PUBLIC_KEY` /
 * `VAPID_PRIVATE_KEY` (base64url, as web-push prints them), or generated once
 * into `<DATA_DIR>/keys/vapid-key.json` (mode 0600) beside the other keys and
 * reused on every later start. Several instances share it by configuration.
 */
import { createPublicKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
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

export async function loadVapidKeys(config: Config): Promise<VapidKeys> {
  if (config.vapidPublicKey !== undefined && config.vapidPrivateKey !== undefined) {
    return checkedKeys(config.vapidPublicKey, config.vapidPrivateKey);
  }
  const file = path.join(config.dataDir, 'keys', VAPID_KEY_FILE);
  const jwk = JSON.parse(await readOrCreate(file, () => JSON.stringify(generateJwk()))) as JsonWebKey;
  return checkedKeys(publicKeyOf(jwk), jwk.d ?? '');
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

function checkedKeys(publicKey: string, privateKey: string): VapidKeys {
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4 || Buffer.from(privateKey, 'base64url').length !== 32) {
    throw new Error('VAPID keys must be a base64url 65-byte uncompressed P-256 public key and a 32-byte private key');
  }
  // Throws unless the point lies on P-256.
  createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) }, format: 'jwk' });
  return { publicKey: b64u(point), privateKey };
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
