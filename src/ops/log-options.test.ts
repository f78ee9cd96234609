import { describe, expect, test } from 'vitest';
import { redactRequestUrl } from './log-options.ts';

describe('request URLs in the log', () => {
  test.each([
    ['/password/reset/abc?x=1', '/password/reset/[redacted]?x=1'],
    ['/login/unlock/abc', '/login/unlock/[redacted]'],
    ['/device?user_code=WDJB-MJHT', '/device?user_code=[redacted]'],
    ['/device?lang=de&user_code=WDJB-MJHT&x=1', '/device?lang=de&user_code=[redacted]&x=1'],
    ['/device/approve?continuation=Jm0cXYZ', '/device/approve?continuation=[redacted]'],
    ['/login?return_to=%2Fdevice%2Fapprove%3Fcontinuation%3DJm0cXYZ', '/login?return_to=%2Fdevice%2Fapprove%3Fcontinuation%3D[redacted]'],
    ['/oauth/authorize?client_id=a&scope=openid', '/oauth/authorize?client_id=a&scope=openid'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactRequestUrl(url)).toBe(logged);
  });
});
