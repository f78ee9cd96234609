/** `keys list | rotate` (SPEC §5.5, §5.6): the signing keys in the database. */
import { bootstrapSigningKey, listSigningKeyStates, rotateSigningKey, RETIRED_KEY_OVERLAP_SECONDS } from '../oauth/keys/signing-keys.ts';
import type { CliCommand } from './command.ts';

export const keysListCommand: CliCommand = {
  words: ['keys', 'list'],
  summary: 'list the signing keys: the active one of each algorithm and retired ones still published',
  options: {},
  async run(context) {
    const keys = (await listSigningKeyStates(await context.database(), new Date())).map((k) => ({
      kid: k.kid,
      alg: k.alg,
      state: k.retiredAt === null ? 'active' as const : 'retired' as const,
      activatedAt: k.activatedAt.toISOString(),
      retiredAt: k.retiredAt?.toISOString() ?? null,
      publishedUntil: k.notAfter?.toISOString() ?? null,
    }));
    return {
      json: keys,
      text: keys.length === 0
        ? ['No signing keys yet (the server or keys rotate creates the first).']
        : keys.map((k) => `${k.kid}  ${k.alg.padEnd(5)}  ${k.state.padEnd(7)}  since ${k.activatedAt}${k.publishedUntil ? `, published until ${k.publishedUntil}` : ''}`),
    };
  },
};

export const keysRotateCommand: CliCommand = {
  words: ['keys', 'rotate'],
  summary: 'make a new signing key of every algorithm active; the old ones stay published until their tokens expire',
  options: {},
  async run(context) {
    const keys = await context.keys();
    const db = await context.database();
    const now = new Date();
    await bootstrapSigningKey(db, keys, now);
    const { activated, retired } = await rotateSigningKey(db, keys, context.config.rsaKeyBits, now, context.events);
    const until = new Date(now.getTime() + RETIRED_KEY_OVERLAP_SECONDS * 1000);
    return {
      json: { activated, retired, retiredKeysPublishedUntil: until.toISOString() },
      text: [
        ...Object.entries(activated).map(([alg, kid]) => `New ${alg} signing key ${kid} is active.`),
        'Running servers pick the new keys up at once: the database announces the change.',
        ...retired.map((r) => `Key ${r} stays in the JWKS until ${until.toISOString()}, when every token it signed has expired.`),
      ],
    };
  },
};
