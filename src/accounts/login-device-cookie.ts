/**
 * Device cookies (OWASP "Slow Down Online Guessing Attacks with Device
 * Cookies"): a browser that has logged into an account successfully carries
 * `nonce.HMAC(key, account ‖ nonce)` for it. Such a browser is counted on its
 * own per-device counter instead of the account-wide one, so failures from
 * anywhere else cannot lock the member out of their own browser.
 *
 * The cookie names no account (the signature binds it to one); it holds up to
 * {@link MAX_DEVICE_ENTRIES} entries for browsers shared by several members.
 * The key is derived from the encryption key for this purpose only.
 */
import { createHmac, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { hostCookie } from '../http/host-cookie.ts';

/** The device cookie's name outside production; `__Host-fs_device` in production ({@link deviceCookie}). */
export const DEVICE_COOKIE = 'fs_device';
export const MAX_DEVICE_ENTRIES = 5;
const DEVICE_COOKIE_DAYS = 365;
const ENTRY = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function sign(key: KeyObject, account: string, nonce: string): string {
  return createHmac('sha256', key).update(`${account}\n${nonce}`).digest('base64url');
}

function entries(cookie: string | undefined): { nonce: string; signature: string; raw: string }[] {
  if (!cookie || cookie.length > 100 * MAX_DEVICE_ENTRIES) return [];
  return cookie.split('~').slice(0, MAX_DEVICE_ENTRIES).flatMap((raw) => {
    const match = ENTRY.exec(raw);
    return match ? [{ nonce: match[1]!, signature: match[2]!, raw }] : [];
  });
}

/** The nonce of this cookie's valid entry for `account`, if any. */
export function deviceNonce(key: KeyObject, account: string, cookie: string | undefined): string | undefined {
  for (const entry of entries(cookie)) {
    const expected = Buffer.from(sign(key, account, entry.nonce));
    if (timingSafeEqual(expected, Buffer.from(entry.signature))) return entry.nonce;
  }
  return undefined;
}

/** The cookie after a successful login into `account`: its entry first, the others kept up to the limit. */
export function deviceCookieAfterLogin(key: KeyObject, account: string, cookie: string | undefined): string {
  const nonce = deviceNonce(key, account, cookie) ?? randomBytes(16).toString('base64url');
  const own = `${nonce}.${sign(key, account, nonce)}`;
  const others = entries(cookie).map((e) => e.raw).filter((raw) => raw !== own);
  return [own, ...others].slice(0, MAX_DEVICE_ENTRIES).join('~');
}

/**
 * The device cookie's name: `__Host-fs_device` in production (http/host-cookie.ts), so that a sibling
 * subdomain cannot shadow it with one of its own and take the member's browser off its own counter.
 */
export function deviceCookie(config: Config): string {
  return hostCookie(config.isProduction, DEVICE_COOKIE);
}

/** The device cookie this request carries, if any. */
export function deviceCookieOf(request: FastifyRequest, config: Config): string | undefined {
  return request.cookies[deviceCookie(config)];
}

export function setDeviceCookie(reply: FastifyReply, config: Config, value: string): void {
  reply.setCookie(deviceCookie(config), value, {
    path: '/', httpOnly: true, sameSite: 'strict', secure: config.isProduction, maxAge: DEVICE_COOKIE_DAYS * 24 * 60 * 60,
  });
}
