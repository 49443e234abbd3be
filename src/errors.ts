/**
 * The one error hierarchy of the platform, and the one table of every error code a client can see.
 *
 * Domain code throws these; only the three edges translate them, all from `ERROR_TABLE`: HTTP
 * (`http/middleware/error-boundary.ts`: the status, and a body per router — `{error, error_description}`, a
 * JSON-RPC error object, or a dashboard page), MCP (`mcp/tool-result.ts` for tool results and
 * `mcp/server-factory.ts` for protocol errors: the JSON-RPC code) and Temporal activities
 * (`activities/support/activity-errors.ts`: the failure type and whether a retry can help). The CLI's one-line
 * failures (`cli/failures.ts`) print the same codes. `code` is stable and documented for agents; `message` is
 * safe to show to a client. Anything that is not an `AppError` is an internal error: its text is logged with a
 * reference id and never reaches a client.
 */

/** JSON-RPC 2.0 error codes used by the MCP edge (numbers, so that this module depends on nothing). */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server error: HTTP-level refusals before the MCP layer (auth, origin, rate limit). */
  serverError: -32000,
} as const;

export interface ErrorSpec {
  /** HTTP status when the error crosses the HTTP edge. */
  status: number;
  /** JSON-RPC error code when it crosses the MCP edge as a protocol error (tool calls answer `isError` results). */
  jsonRpc: number;
  /** Whether doing the same thing again can succeed (the activity edge retries only these). */
  retryable: boolean;
}

const refusal = (status: number, jsonRpc: number = JSON_RPC.serverError): ErrorSpec => ({
  status,
  jsonRpc,
  retryable: false,
});

/**
 * Every code a client can see, with its HTTP status, JSON-RPC code and retry rule. Adding a code here is all an
 * edge needs; `errors-table.test.ts` proves that every thrown code is listed.
 */
export const ERROR_TABLE = {
  // Domain errors: every edge (tool results, JSON-RPC `data.code`, HTTP bodies, CLI lines, job errors).
  validation_failed: refusal(400, JSON_RPC.invalidParams),
  unauthenticated: refusal(401),
  forbidden: refusal(403, JSON_RPC.invalidParams),
  not_found: refusal(404, JSON_RPC.invalidParams),
  conflict: refusal(409, JSON_RPC.invalidParams),
  insufficient_credits: refusal(402, JSON_RPC.invalidParams),
  rate_limited: { status: 429, jsonRpc: JSON_RPC.serverError, retryable: true },
  unavailable: { status: 503, jsonRpc: JSON_RPC.invalidParams, retryable: true },
  internal_error: { status: 500, jsonRpc: JSON_RPC.internalError, retryable: true },
  /** An internal-only action called by an external client (the tool wrapper names the action to use instead). */
  deprecated_action: refusal(400, JSON_RPC.invalidParams),

  // Why a tool-server or conversions credential was refused (`data.code` / `error`; RFC 6750 challenge beside).
  missing_credentials: refusal(401),
  conflicting_credentials: refusal(400),
  token_in_query: refusal(401),
  malformed_api_key: refusal(401),
  unknown_api_key: refusal(401),
  disabled_api_key: refusal(401),
  api_key_creator_removed: refusal(401),
  invalid_token: refusal(401),
  forbidden_origin: refusal(403),

  // Requests the HTTP edge cannot read.
  bad_request: refusal(400),
  payload_too_large: refusal(413, JSON_RPC.invalidRequest),
  parse_error: refusal(400, JSON_RPC.parseError),
  forbidden_key: refusal(400, JSON_RPC.invalidRequest),
  invalid_json: refusal(400),
  body_too_large: refusal(413),
  unsupported_media_type: refusal(415, JSON_RPC.invalidRequest),
  method_not_allowed: refusal(405),
  invalid_client_metadata: refusal(400),
  // JSON-RPC batches on the tool server (only MCP 2025-03-26 has them).
  batch_not_supported: refusal(400, JSON_RPC.invalidRequest),
  batch_too_large: refusal(400, JSON_RPC.invalidRequest),
  empty_batch: refusal(400, JSON_RPC.invalidRequest),

  // Brand sites: beacons and the concierge.
  invalid_beacon: refusal(400),
  concierge_disabled: refusal(404),
  invalid_request: refusal(400),
  query_missing: refusal(400),
  query_empty: refusal(400),
  query_too_long: refusal(400),

  // A job's `error.code` (job views, task results): how its workflow ended when no activity code applies.
  job_failed: refusal(500, JSON_RPC.internalError),
  /** The workflow could not be started (Temporal unreachable); the job row says to try again. */
  start_failed: { status: 503, jsonRpc: JSON_RPC.internalError, retryable: true },
  generation_failed: refusal(500, JSON_RPC.internalError),
  import_failed: refusal(500, JSON_RPC.internalError),
  film_failed: refusal(500, JSON_RPC.internalError),
  render_failed: refusal(500, JSON_RPC.internalError),
  approval_timeout: refusal(408, JSON_RPC.internalError),
  creative_provider_refused: refusal(502, JSON_RPC.internalError),

  // Social channels: a connected account a person must reconnect, a network that refused a request.
  channel_reconnect_required: refusal(409, JSON_RPC.invalidParams),
  channel_refused: refusal(502, JSON_RPC.invalidParams),
  channel_post_failed: refusal(500, JSON_RPC.internalError),
  /** A post's error when its account was disconnected before it went out (retry once one is reconnected). */
  account_disconnected: refusal(409, JSON_RPC.invalidParams),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Extra machine-readable facts that are safe to show (e.g. which fields failed). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }

  /** HTTP status used when this error crosses the HTTP edge (from `ERROR_TABLE`). */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

/** Input failed validation. Shown to users with the offending fields in `details.issues`. */
export class ValidationError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('validation_failed', message, details);
  }
}

export type UnauthenticatedReason =
  | 'unauthenticated'
  | 'missing_credentials'
  | 'conflicting_credentials'
  | 'token_in_query'
  | 'malformed_api_key'
  | 'unknown_api_key'
  | 'disabled_api_key'
  | 'api_key_creator_removed'
  | 'invalid_token';

/**
 * No usable credentials; `code` says why (`missing_credentials`, `invalid_token`, …). The HTTP edge answers
 * with the code's status (401; 400 for two credentials at once) and the authenticating middleware's
 * `WWW-Authenticate` challenge (`headers`).
 */
export class UnauthenticatedError extends AppError {
  /** False only when the request carried no credentials at all (RFC 6750: then the challenge has no error). */
  readonly credentialsPresented: boolean;
  /** Response headers the HTTP edge sends with this error (the bearer challenge). */
  headers: Record<string, string> = {};

  constructor(reason: UnauthenticatedReason = 'unauthenticated', message = 'Authentication required') {
    super(reason, message);
    this.credentialsPresented = reason !== 'missing_credentials';
  }

  /** The RFC 6750 reason, as the authenticator names it. */
  get reason(): UnauthenticatedReason {
    return this.code as UnauthenticatedReason;
  }
}
/** The caller is known but its role does not allow the action. */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/**
 * The entity does not exist *in the caller's workspace*. Another workspace's ids must produce exactly this
 * error with exactly this message shape, so that existence never leaks across workspaces.
 */
export class NotFoundError extends AppError {
  constructor(entity: string, id?: string) {
    super('not_found', id ? `${entity} ${id} was not found` : `${entity} was not found`);
  }
}

/** The request conflicts with the current state (illegal transition, duplicate). */
export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('conflict', message, details);
  }
}

/** Not enough credits to start or continue a paid operation. Nothing was spent. */
export class InsufficientCreditsError extends AppError {
  constructor(required: number, available: number) {
    super('insufficient_credits', `This needs ${required} credits but the workspace has ${available}`, {
      required,
      available,
    });
  }
}

/** A dependency (database, Temporal) is unreachable; the client should retry with backoff. */
export class UnavailableError extends AppError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/** The caller sent requests faster than its budget allows; `details.retryAfterSeconds` says when to retry. */
export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message, { retryAfterSeconds });
  }
}

/**
 * A connected channel account cannot be used until a person reconnects it (its app password was revoked, its
 * sign-in refused): `details` name the account. Retrying does not help.
 */
export class ChannelReconnectRequiredError extends AppError {
  constructor(message: string, details: { accountId: string; network: string; handle: string }) {
    super('channel_reconnect_required', message, details);
  }
}

/** A social network refused a request for a reason of its own (its error code and message are in `details`). */
export class ChannelRefusedError extends AppError {
  constructor(message: string, details: { network: string; networkError: string; status: number }) {
    super('channel_refused', message, details);
  }
}

/**
 * A refusal of the HTTP edge itself (unreadable body, wrong media type, a foreign Origin, a path or file that
 * is not there): the request never reached a domain service. `details` are shown (e.g. the body limit).
 */
export class RequestRefusedError extends AppError {
  constructor(
    code: Extract<
      ErrorCode,
      | 'bad_request'
      | 'not_found'
      | 'payload_too_large'
      | 'parse_error'
      | 'forbidden_key'
      | 'invalid_json'
      | 'body_too_large'
      | 'unsupported_media_type'
      | 'method_not_allowed'
      | 'invalid_client_metadata'
      | 'forbidden_origin'
      | 'batch_not_supported'
      | 'batch_too_large'
      | 'empty_batch'
    >,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, details);
  }
}
