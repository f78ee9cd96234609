/** `client add` and `keys rotate` (SPEC §3). */
import { createClient } from '../oauth/clients/clients.service.ts';
import { bootstrapSigningKey, rotateSigningKey, RETIRED_KEY_OVERLAP_SECONDS } from '../oauth/keys/signing-keys.ts';
import { positiveIntegers, requiredString, stringList, type CliCommand } from './command.ts';

export const clientAddCommand: CliCommand = {
  words: ['client', 'add'],
  usage: 'client add --client-id ID --name N --redirect-uri URI... [--public] [--scope openid --scope profile ...] [--grant refresh_token] [--required-region ID]...',
  options: {
    'client-id': { type: 'string' },
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    public: { type: 'boolean' },
    scope: { type: 'string', multiple: true },
    grant: { type: 'string', multiple: true },
    'required-region': { type: 'string', multiple: true },
  },
  async run(context, values) {
    const input = {
      clientId: requiredString(values, 'client-id'),
      name: requiredString(values, 'name'),
      confidential: values.public !== true,
      redirectUris: stringList(values, 'redirect-uri'),
      scopes: stringList(values, 'scope'),
      grantTypes: stringList(values, 'grant'),
      requiredRegions: positiveIntegers(values, 'required-region'),
    };
    const keys = await context.keys();
    const { clientId, secret } = await createClient(await context.database(), keys, input);
    const lines = [`Client ${clientId} created (${input.confidential ? 'confidential' : 'public'}).`];
    if (secret !== null) lines.push(`Client secret (shown only now, store it safely): ${secret}`);
    return { json: { clientId, confidential: input.confidential, secret }, text: lines.join('\n') };
  },
};

export const keysRotateCommand: CliCommand = {
  words: ['keys', 'rotate'],
  usage: 'keys rotate',
  options: {},
  async run(context) {
    const keys = await context.keys();
    const db = await context.database();
    const now = new Date();
    await bootstrapSigningKey(db, keys, now);
    const { kid, retired } = await rotateSigningKey(db, keys, context.config.rsaKeyBits, now);
    const until = new Date(now.getTime() + RETIRED_KEY_OVERLAP_SECONDS * 1000);
    return {
      json: { kid, retired, retiredKeysPublishedUntil: until.toISOString() },
      text: [
        `New signing key ${kid} is active (running servers pick it up within a minute).`,
        ...retired.map((r) => `Key ${r} stays in the JWKS until ${until.toISOString()}, when every token it signed has expired.`),
      ].join('\n'),
    };
  },
};
