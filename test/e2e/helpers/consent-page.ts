/** What the English consent page says (src/web/consent/consent.messages.ts), for locating its controls. */
export const CONSENT = {
  allow: 'Allow',
  deny: 'Deny',
  remember: 'Remember this choice',
  scope: {
    openid: 'Your user ID and first name, to sign you in',
    profile: 'Your full name and profile picture',
    email: 'Your email address',
    regions: 'The regions and working groups you belong to or coordinate as an ambassador',
  },
} as const;
