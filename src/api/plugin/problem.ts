/**
 * RFC 9457 problem details for `/api` (SPEC §7). Services throw
 * {@link ApiProblem}; the `/api` error handler turns it into
 * `application/problem+json` with a stable `code`.
 */
import type { ProblemCode } from './problem-codes.ts';

export interface FieldError {
  /** JSON pointer-ish path of the offending field, e.g. `/email` or `/0/id`. */
  readonly field: string;
  readonly message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  errors?: FieldError[];
  /** RFC 9457 §3.2 extension of `auth.too-many-attempts`: the page where this account's login can be unlocked by email. */
  unlock?: string;
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  408: 'Request Timeout', 409: 'Conflict', 412: 'Precondition Failed', 413: 'Content Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Content', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: readonly FieldError[],
    /** Extra response headers, e.g. `Retry-After`. */
    readonly headers?: Readonly<Record<string, string>>,
    /** Extension members (RFC 9457 §3.2) declared in {@link ProblemBody}. */
    readonly extensions?: Pick<ProblemBody, 'unlock'>,
  ) {
    super(detail);
    this.name = 'ApiProblem';
  }

  toBody(): ProblemBody {
    return { ...problemBody(this.status, this.code, this.detail, this.errors), ...this.extensions };
  }
}

export function problemBody(status: number, code: ProblemCode, detail: string, errors?: readonly FieldError[]): ProblemBody {
  return {
    type: `about:blank`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors: onePerField(errors) } : {}),
  };
}

/**
 * SPEC-API: one entry per offending field. A value can break several rules of its field at once (`-1.5`
 * for a count of grams: not an integer, below 0); the first one reported names it: Ajv checks the type
 * first, then the other keywords in an order of its own (the length before the pattern).
 */
function onePerField(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => !seen.has(error.field) && seen.add(error.field));
}

/** Thrown by services for invalid input that passed the schema but breaks a rule of a field. */
export class ValidationFailed extends ApiProblem {
  constructor(errors: readonly FieldError[], detail = 'The request is invalid.') {
    super(400, 'request.invalid', detail, errors);
  }
}
