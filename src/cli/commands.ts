/** Every operator command, in the order `--help` lists them. */
import { auditListCommand } from './audit.commands.ts';
import { clientExportCommand, clientImportCommand } from './client-transfer.commands.ts';
import { clientAddCommand, clientDeleteCommand, clientListCommand, clientRotateSecretCommand, clientShowCommand, clientUpdateCommand } from './clients.commands.ts';
import type { CliCommand } from './command.ts';
import { keysListCommand, keysRotateCommand } from './keys.commands.ts';
import { oauthTryCommand } from './oauth-try.command.ts';
import { regionAddCommand, regionListCommand } from './regions.commands.ts';
import { sessionsRevokeCommand } from './sessions.commands.ts';
import { dbBackupCommand, dbRestoreCommand } from './db.commands.ts';
import { demoCommand, demoRemoveCommand, migrateCommand } from './setup.commands.ts';
import { tokenIntrospectCommand, tokenRevokeCommand } from './tokens.commands.ts';
import { userAddCommand, userDeleteCommand, userDisableCommand, userEnableCommand, userListCommand, userResetSecondFactorCommand, userSetPasswordCommand, userShowCommand } from './users.commands.ts';

export const COMMANDS: readonly CliCommand[] = [
  migrateCommand, dbBackupCommand, dbRestoreCommand,
  regionListCommand, regionAddCommand,
  userListCommand, userShowCommand, userAddCommand, userSetPasswordCommand, userDisableCommand, userEnableCommand, userDeleteCommand, userResetSecondFactorCommand,
  sessionsRevokeCommand,
  tokenIntrospectCommand, tokenRevokeCommand,
  clientListCommand, clientShowCommand, clientAddCommand, clientUpdateCommand, clientDeleteCommand, clientRotateSecretCommand,
  clientExportCommand, clientImportCommand,
  keysListCommand, keysRotateCommand,
  auditListCommand,
  demoCommand, demoRemoveCommand,
  oauthTryCommand,
];
