import { describe, expect, it } from 'vitest';
import { isPrettyLog } from './log-options.ts';

describe('isPrettyLog', () => {
  it('is pretty on a terminal outside production when left to auto', () => {
    expect(isPrettyLog({ logFormat: 'auto', isProduction: false }, true)).toBe(true);
    expect(isPrettyLog({ logFormat: 'auto', isProduction: false }, false)).toBe(false);
    expect(isPrettyLog({ logFormat: 'auto', isProduction: true }, true)).toBe(false);
  });

  it('follows an explicit choice', () => {
    expect(isPrettyLog({ logFormat: 'json', isProduction: false }, true)).toBe(false);
    expect(isPrettyLog({ logFormat: 'pretty', isProduction: true }, false)).toBe(true);
  });
});
