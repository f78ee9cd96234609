/** What the security page says when the session may not change the member's factors (accounts/recent-sign-in.ts). */
import type { FactorChange } from '../../accounts/recent-sign-in.ts';
import type { Translate } from '../i18n.ts';

export function factorChangeRefusal(t: Translate, change: Exclude<FactorChange, 'allowed'>): string {
  return t(change === 'sign-in-again' ? 'security.signInAgain.needed' : 'security.signInAgain.secondFactor');
}
