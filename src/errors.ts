/**
 * The one error hierarchy of the platform.
 *
 * Domain code throws these; only the three edges translate them: HTTP (`http/middleware/error-boundary.ts`),
 * MCP tool results (`mcp/tool-result.ts`) and Temporal activities (`activities/support/activity-errors.ts`).
 * `code` is stable and documented for agents; `message` is safe to show to a client. Anything that is not an
 * `AppError` is an internal error: its text is logged with a reference id and never reaches a client.
 */
export type ErrorCode =
  | 'validation_failed'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'insufficient_credits'
  | 'unavailable'
  | 'internal_error';

export class AppError extends Error {
  readonly code: ErrorCode;
  /** HTTP status used when this error crosses the HTTP edge. */
  readonly status: number;
  /** Extra machine-readable facts that are safe to show (e.g. which fields failed). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, status: number, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** Input failed validation. Shown to users with the offending fields in `details.issues`. */
export class ValidationError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('validation_failed', 400, message, details);
  }
}

/** No usable credentials. The HTTP edge adds the `WWW-Authenticate` challenge. */
export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication required') {
    super('unauthenticated', 401, message);
  }
}

/** The caller is known but its role does not allow the action. */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', 403, message);
  }
}

/**
 * The entity does not exist *in the caller's workspace*. Another workspace's ids must produce exactly this
 * error with exactly this message shape, so that existence never leaks across workspaces.
 */
export class NotFoundError extends AppError {
  constructor(entity: string, id?: string) {
    super('not_found', 404, id ? `${entity} ${id} was not found` : `${entity} was not found`);
  }
}

/** The request conflicts with the current state (illegal transition, duplicate). */
export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('conflict', 409, message, details);
  }
}

/** Not enough credits to start or continue a paid operation. Nothing was spent. */
export class InsufficientCreditsError extends AppError {
  constructor(required: number, available: number) {
    super('insufficient_credits', 402, `This needs ${required} credits but the workspace has ${available}`, {
      required,
      available,
    });
  }
}

/** A dependency (database, Temporal) is unreachable; the client should retry with backoff. */
export class UnavailableError extends AppError {
  constructor(message: string) {
    super('unavailable', 503, message);
  }
}
