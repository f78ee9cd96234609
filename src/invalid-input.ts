/**
 * Input that passed its schema but breaks a rule of a field. Services throw it;
 * each caller words it for its reader: a page next to the field, the CLI as
 * JSON lines, `/api` as problem+json.
 */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export class InvalidInput extends Error {
  constructor(readonly errors: readonly FieldError[], message = 'The request is invalid.') {
    super(message);
    this.name = 'InvalidInput';
  }
}
