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

/** One or more fields of a client break a rule; `errors` names each (`clientId`, `name`, `redirectUris`, ...). */
export class InvalidClientInput extends InvalidInput {
  constructor(errors: readonly FieldError[], message?: string) {
    super(errors, message);
    this.name = 'InvalidClientInput';
  }
}
