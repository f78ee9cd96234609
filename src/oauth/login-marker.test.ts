import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { LOGIN_MARKER_VALID_SECONDS, loginMarker, loginMarkerTime } from './login-marker.ts';

const key = createSecretKey(randomBytes(32));
const at = new Date('2026-11-28T12:00:00Z');
const seconds = at.getTime() / 1000;
const later = (s: number) => new Date(at.getTime() + s * 1000);

describe('login markers', () => {
  test('a marker names its second for its client, up to its last valid second', () => {
    const marker = loginMarker(key, 'wiki', at);
    expect(marker).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    expect(loginMarkerTime(key, 'wiki', marker, at)).toBe(seconds);
    expect(loginMarkerTime(key, 'wiki', marker, later(LOGIN_MARKER_VALID_SECONDS))).toBe(seconds);
    expect(loginMarkerTime(key, 'wiki', marker, later(LOGIN_MARKER_VALID_SECONDS + 1))).toBeUndefined();
  });

  test('another client, another key, another second or a bare second count as none', () => {
    const marker = loginMarker(key, 'wiki', at);
    const [, mac] = marker.split('.');
    expect(loginMarkerTime(key, 'other', marker, at)).toBeUndefined();
    expect(loginMarkerTime(createSecretKey(randomBytes(32)), 'wiki', marker, at)).toBeUndefined();
    expect(loginMarkerTime(key, 'wiki', `${seconds - 600}.${mac}`, at)).toBeUndefined();
    for (const forged of [String(seconds - 600), '0', '', `${seconds}.`, `${seconds}.${mac}x`, undefined]) {
      expect(loginMarkerTime(key, 'wiki', forged, at)).toBeUndefined();
    }
  });
});
