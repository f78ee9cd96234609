/**
 * Every `code` an `/api` problem response may carry. Clients switch on these,
 * never on message texts; a code, once published, keeps its meaning.
 */
export type ProblemCode =
  | 'request.invalid'
  | 'request.not-found'
  | 'request.method-not-allowed'
  | 'request.too-large'
  | 'request.unsupported-media-type'
  | 'auth.unauthenticated'
  | 'auth.forbidden'
  | 'auth.csrf-invalid'
  | 'auth.invalid-credentials'
  | 'auth.too-many-attempts'
  | 'server.error'
  | 'server.unavailable';
