import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/** The processes and the wiring (docs/architecture.md "Layers"): nothing below imports them. */
const TOP = 'src/{main,cli,startup,app}.ts';
const ABOVE_DOORS = ['src/{cli,demo}/**', TOP];

/**
 * One zone per layer of docs/architecture.md: `target` may not import `from`.
 * Imports point down; sideways only from web/ to oauth/.
 */
const LAYERS = [
  {
    target: 'src/db/**',
    from: ['src/{accounts,ops,http,mail,api,oauth,web}/**', ...ABOVE_DOORS],
    // db/schema.ts composes the database's type from each area's table declarations (types only).
    except: ['**/*.tables.ts'],
    message: 'db/ is the bottom layer: it imports no other part of src/ (but the *.tables.ts types in db/schema.ts).',
  },
  {
    target: 'src/mail/**',
    from: ['src/{accounts,http,api,oauth,web}/**', ...ABOVE_DOORS],
    message: 'mail/ (the queue and its sender) lies below accounts/: each kind of mail is composed by its area and handed in by app.ts.',
  },
  {
    target: 'src/{accounts,ops,http}/**',
    from: ['src/{api,oauth,web}/**', ...ABOVE_DOORS],
    message: 'accounts/, ops/ and http/ lie below the three doors (api/, oauth/, web/) and what wires them.',
  },
  {
    target: 'src/api/**',
    from: ['src/{oauth,web}/**', ...ABOVE_DOORS],
    // The server's key material (loaded once, passed in by app.ts) lives in oauth/keys/ for now.
    except: ['**/oauth/keys/key-material.ts', '**/oauth/keys/derived-keys.ts'],
    message: 'api/ imports neither oauth/ nor web/ nor anything above the doors.',
  },
  {
    target: 'src/oauth/**',
    from: ['src/{api,web}/**', ...ABOVE_DOORS],
    message: 'oauth/ imports neither api/ nor web/ nor anything above the doors.',
  },
  {
    target: 'src/web/**',
    from: ['src/api/**', ...ABOVE_DOORS],
    message: 'web/ may call oauth/ services, but imports neither api/ nor anything above the doors.',
  },
  {
    target: 'src/demo/**',
    from: ['src/{cli,web}/**', TOP],
    message: 'demo/ builds its dataset through the services and repositories; the processes load it.',
  },
  {
    target: 'src/app.ts',
    from: ['src/cli/**', 'src/{main,cli,startup}.ts'],
    message: 'app.ts wires the modules; the processes import it, not the other way round.',
  },
].map((zone) => ({
  ...zone,
  target: path.join(ROOT, zone.target),
  from: zone.from.map((from) => path.join(ROOT, from)),
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-empty-object-type': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    // The pages' own scripts run in the browser (web/static/, served by web/render.ts).
    files: ['src/web/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', fetch: 'readonly', globalThis: 'readonly', setTimeout: 'readonly', HTMLInputElement: 'readonly' },
    },
  },
  {
    // Import direction (docs/architecture.md): down the layers, and no circle.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: LAYERS }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Test files share their worker's module registry (vitest.config.ts, `isolate: false`): a
    // mocked module or a stubbed variable would leak into the files run after.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': ['error', ...['mock', 'doMock', 'stubEnv', 'stubGlobal', 'useFakeTimers'].map((property) => ({
        object: 'vi', property, message: 'Test files share a module registry (vitest.config.ts, isolate: false): put this file in an isolated project first.',
      }))],
    },
  },
);
