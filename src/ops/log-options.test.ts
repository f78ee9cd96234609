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
    ['/language/en?return_to=%2Fpassword%2Freset%2FA6LnbXvVrswejLqujkhCTsShKvwnHwMEMkEZjVRxa_c', '/language/en?return_to=%2Fpassword%2Freset%2F[redacted]'],
    ['/language/de?return_to=%2flogin%2funlock%2Fi42YnY4crH945&x=1', '/language/de?return_to=%2flogin%2funlock%2F[redacted]&x=1'],
    ['/language/en?return_to=/password/reset/abc', '/language/en?return_to=/password/reset/[redacted]'],
    ['/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fpassword%252Freset%252Fabc', '/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fpassword%252Freset%252F[redacted]'],
    ['/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fdevice%253Fuser_code%253DWDJB-MJHT', '/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fdevice%253Fuser_code%253D[redacted]'],
    ['/oauth/logout?id_token_hint=eyJh.eyJz.c2ln&client_id=a', '/oauth/logout?id_token_hint=[redacted]&client_id=a'],
    ['/oauth/userinfo?access_token=eyJh.eyJz.c2ln', '/oauth/userinfo?access_token=[redacted]'],
    ['/oauth/authorize?client_id=a&login_hint=foodsaver%40example.org&request=eyJ', '/oauth/authorize?client_id=a&login_hint=[redacted]&request=[redacted]'],
    ['/oauth/token?grant_type=x&code=abc&code_verifier=v&client_secret=s&client_assertion=j&refresh_token=r&device_code=d',
      '/oauth/token?grant_type=x&code=[redacted]&code_verifier=[redacted]&client_secret=[redacted]&client_assertion=[redacted]&refresh_token=[redacted]&device_code=[redacted]'],
    ['/oauth/revoke?token=abc&password=p', '/oauth/revoke?token=[redacted]&password=[redacted]'],
    ['/login?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Da%26login_hint%3Dfoodsaver%2540example.org', '/login?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Da%26login_hint%3D[redacted]'],
    ['/oauth/authorize?code_challenge=abc&request_uri=urn%3Ax&tokens=1', '/oauth/authorize?code_challenge=abc&request_uri=urn%3Ax&tokens=1'],
    ['/password/reset/%699SSab?x=1', '/password/reset/[redacted]?x=1'],
    ['/password/reset//i9SS', '/password/reset//[redacted]'],
    ['/p%61ssword/reset/abc', '/password/reset/[redacted]'],
    ['/language/en?return_to=%2Fp%2561ssword%2Freset%2FSECRETTOKEN', '/language/en?return_to=%2Fpassword%2Freset%2F[redacted]'],
    ['/language/en?return_to=%2Fp%25%36%31ssword%2Freset%2FSECRETTOKEN123', '/language/en?return_to=%2Fpassword%2Freset%2F[redacted]'],
    // Dot segments, which a browser resolves on the way there.
    ['/language/en?return_to=/password/./reset/SECRETTOKEN', '/language/en?return_to=/password/./reset/[redacted]'],
    ['/language/en?return_to=/password/reset/./TOK&x=1', '/language/en?return_to=/password/reset/[redacted]&x=1'],
    ['/password/reset/x/../TOK', '/password/reset/[redacted]'],
    ['/language/en?return_to=%2Fpassword%2Freset%2F.%2FTOK%26x', '/language/en?return_to=%2Fpassword%2Freset%2F[redacted]%26x'],
    ['/language/en?return_to=%2Flogin%2F%2e%2e%2Flogin%2Funlock%2FTOK', '/language/en?return_to=%2Flogin%2F..%2Flogin%2Funlock%2F[redacted]'],
    ['/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fp%252561ssword%252Freset%252Fabc', '/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fpassword%252Freset%252F[redacted]'],
    ['/LOGIN/Unlock/abc', '/LOGIN/Unlock/[redacted]'],
    ['/password/reset/%zzabc', '/password/reset/[redacted]'],
    ['/language/en?return_to=%2Fpassword%2Freset%2F%2569SS&x=1', '/language/en?return_to=%2Fpassword%2Freset%2F[redacted]&x=1'],
    ['/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fpassword%252Freset%252Fab%25252569c%2526x%253D1', '/login?return_to=%2Flanguage%2Fen%3Freturn_to%3D%252Fpassword%252Freset%252F[redacted]%2526x%253D1'],
    ['/password/reset', '/password/reset'],
    ['/oauth/authorize?state=%41%2F%7E', '/oauth/authorize?state=A%2F~'],
    ['/oauth/authorize?client_id=a&scope=openid', '/oauth/authorize?client_id=a&scope=openid'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactRequestUrl(url)).toBe(logged);
  });
});
