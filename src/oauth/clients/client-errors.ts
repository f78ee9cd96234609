/**
 * What administering clients can go wrong with, caught alike by the admin
 * pages, the CLI and tests; none of them reads a message text to tell which.
 */
import { InvalidInput, type FieldError } from '../../invalid-input.ts';

/** Unknown client id in an administrative call. */
export class ClientNotFound extends Error {
  constructor(readonly clientId: string) {
    super(`There is no OAuth client "${clientId}".`);
    this.name = 'ClientNotFound';
  }
}

/**
 * The client was changed by someone else (another operator, the command line) between the moment it was
 * read and the write: nothing was written, so that neither change silently undoes the other (an edit
 * saved over a new secret brought the old one back).
 */
export class ClientChangedMeanwhile extends Error {
  constructor(readonly clientId: string) {
    super(`The OAuth client "${clientId}" was changed by someone else meanwhile: nothing was written. Look at it again, then retry.`);
    this.name = 'ClientChangedMeanwhile';
  }
}

/** One or more fields of a client break a rule; `errors` names each (`clientId`, `name`, `redirectUris`, ...). */
export class InvalidClientInput extends InvalidInput {
  constructor(errors: readonly FieldError[], message?: string) {
    super(errors, message);
    this.name = 'InvalidClientInput';
  }
}
