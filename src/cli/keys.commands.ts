/** `keys list | rotate` (SPEC §5.5, §5.6): the signing keys in the database. */
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY_PUBLISH_LEAD_SECONDS } from '../oauth/keys/key-store.ts';
import { bootstrapSigningKey, listSigningKeyStates, RETIRED_KEY_OVERLAP_SECONDS, rotateSigningKey } from '../oauth/keys/signing-keys.ts';
import type { CliCommand } from './command.ts';

/** A key's state at `now`: published before it signs (`pending`), signing, or published for its tokens only. */
function keyState(key: { activatedAt: Date; retiredAt: Date | null }, now: Date): 'pending' | 'active' | 'retired' {
  if (key.activatedAt > now) return 'pending';
  return key.retiredAt === null || key.retiredAt > now ? 'active' : 'retired';
}

function signingTimes(key: { state: 'pending' | 'active' | 'retired'; activatedAt: string; retiredAt: string | null }): string {
  if (key.state === 'pending') return `signs from ${key.activatedAt}${key.retiredAt === null ? '' : ` to ${key.retiredAt}`}`;
  if (key.state === 'retired') return `signed from ${key.activatedAt} to ${key.retiredAt}`;
  return `since ${key.activatedAt}${key.retiredAt === null ? '' : `, until ${key.retiredAt}`}`;
}

export const keysListCommand: CliCommand = {
  words: ['keys', 'list'],
  summary: 'list the signing keys: the active one of each algorithm, new ones not signing yet, and retired ones still published',
  options: {},
  async run(context) {
    const now = new Date();
    const keys = (await listSigningKeyStates(await context.database(), now)).map((k) => ({
      kid: k.kid,
      alg: k.alg,
      state: keyState(k, now),
      activatedAt: k.activatedAt.toISOString(),
      retiredAt: k.retiredAt?.toISOString() ?? null,
      publishedUntil: k.notAfter?.toISOString() ?? null,
    }));
    return {
      json: keys,
      text: keys.length === 0
        ? ['No signing keys yet: the server stores them when it first needs one (the first token, or the JWKS), and keys rotate makes them at once.']
        : keys.map((k) => `${k.kid}  ${k.alg.padEnd(5)}  ${k.state.padEnd(7)}  ${signingTimes(k)}${k.publishedUntil ? `, published until ${k.publishedUntil}` : ''}`),
    };
  },
};

export const keysRotateCommand: CliCommand = {
  words: ['keys', 'rotate'],
  summary: 'make a new signing key of every algorithm active; the old ones stay published until their tokens expire',
  details: [
    `On PostgreSQL the new keys are published at once and sign ${KEY_PUBLISH_LEAD_SECONDS} seconds later, when every running instance and every cache of the JWKS lists them; the command returns then.`,
    'With the embedded database no server runs beside the command: the new keys sign at once.',
  ],
  options: {},
  async run(context) {
    const keys = await context.keys();
    const db = await context.database();
    const now = new Date();
    await bootstrapSigningKey(db, keys, now);
    const lead = context.config.databaseUrl === undefined ? 0 : KEY_PUBLISH_LEAD_SECONDS;
    const { activated, retired, activeFrom } = await rotateSigningKey(db, keys, context.config.rsaKeyBits, () => new Date(), context.events, lead);
    if (lead > 0) {
      const wait = Math.max(0, Math.ceil((activeFrom.getTime() - Date.now()) / 1000));
      context.say(`New keys published; they sign from ${activeFrom.toISOString()} (in ${wait} s, once every instance and cache of the JWKS lists them). Waiting…`);
      await sleep(Math.max(0, activeFrom.getTime() - Date.now()));
    }
    const until = new Date(activeFrom.getTime() + RETIRED_KEY_OVERLAP_SECONDS * 1000);
    return {
      json: { activated, retired, activeFrom: activeFrom.toISOString(), retiredKeysPublishedUntil: until.toISOString() },
      text: [
        ...Object.entries(activated).map(([alg, kid]) => `New ${alg} signing key ${kid} is active.`),
        lead > 0
          ? 'Running servers listed the new keys before signing with them: the database announces every change.'
          : 'Running servers pick the new keys up at once: the database announces the change.',
        ...retired.map((r) => `Key ${r} stays in the JWKS until ${until.toISOString()}, when every token it signed has expired.`),
      ],
    };
  },
};
