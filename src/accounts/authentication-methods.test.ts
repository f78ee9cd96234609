import { describe, expect, it } from 'vitest';
import { ACR_MULTI_FACTOR, ACR_PASSWORD, ACR_PHISHING_RESISTANT, acrOf, completedByOneTimeCode, meetsAcr, statedAmr, withFactor, withOneTimeCode } from './authentication-methods.ts';

describe('two factors (NIST SP 800-63B §4.2.1)', () => {
  it('a password and something held are two; mfa is added once, after the methods', () => {
    expect(withOneTimeCode(['pwd'])).toEqual(['pwd', 'otp', 'mfa']);
    expect(withFactor(['pwd'], ['hwk'])).toEqual(['pwd', 'hwk', 'mfa']);
    expect(withFactor(['pwd'], ['swk', 'user', 'mfa'])).toEqual(['pwd', 'swk', 'user', 'mfa']);
    expect(withOneTimeCode(['pwd', 'otp', 'mfa'])).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('two things held are one factor twice: a key that verified nobody and a code', () => {
    expect(withOneTimeCode(['hwk'])).toEqual(['hwk', 'otp']);
    expect(withFactor(['hwk'], ['swk'])).toEqual(['hwk', 'swk']);
    expect(meetsAcr(withOneTimeCode(['hwk']), ACR_MULTI_FACTOR)).toBe(false);
  });

  it('a passkey that verified its member is two by itself, whatever it is added to', () => {
    expect(withFactor(['hwk'], ['hwk', 'user', 'mfa'])).toEqual(['hwk', 'user', 'mfa']);
    expect(withOneTimeCode(['swk', 'user', 'mfa'])).toEqual(['swk', 'user', 'otp', 'mfa']);
  });

  it('a code completes the password, nothing else', () => {
    expect(completedByOneTimeCode(['pwd'])).toBe(true);
    expect(completedByOneTimeCode(['hwk'])).toBe(false);
    expect(completedByOneTimeCode(['swk'])).toBe(false);
    expect(completedByOneTimeCode(['hwk', 'user', 'mfa'])).toBe(true);
  });

  it('the levels the combinations reach', () => {
    expect(acrOf(['pwd'])).toBe(ACR_PASSWORD);
    expect(acrOf(withOneTimeCode(['pwd']))).toBe(ACR_MULTI_FACTOR);
    expect(acrOf(withFactor(['pwd'], ['hwk']))).toBe(ACR_PHISHING_RESISTANT);
    expect(meetsAcr(withFactor(['pwd'], ['hwk']), ACR_MULTI_FACTOR)).toBe(true);
  });
});

describe('the amr an ID token states (RFC 8176 §2)', () => {
  it('says user (presence tested) for every passkey, with mfa where it verified its member', () => {
    expect(statedAmr(['hwk'])).toEqual(['hwk', 'user']);
    expect(statedAmr(['swk'])).toEqual(['swk', 'user']);
    expect(statedAmr(['hwk', 'user', 'mfa'])).toEqual(['hwk', 'user', 'mfa']);
    expect(statedAmr(['pwd', 'hwk', 'mfa'])).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    expect(statedAmr(['pwd', 'hwk', 'user', 'mfa'])).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    expect(statedAmr(['pwd', 'otp', 'mfa'])).toEqual(['pwd', 'otp', 'mfa']);
    expect(statedAmr(['pwd'])).toEqual(['pwd']);
  });
});
