#!/usr/bin/env node
// The package's `bin`: the operator CLI (see README). Loads the TypeScript source through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli.ts');
process.exitCode = await runCli(process.argv.slice(2));
