/**
 * The CLI edge of the error model: the one line and exit code of a command that failed. Domain errors print
 * their stable code from `ERROR_TABLE` (`Error (not_found): …`, exit 1). Failures caused by the CLI's
 * surroundings rather than its input — the database or Temporal cannot be reached, the schema is missing, the
 * cookie secret does not match the API's — name the service, where the CLI looked, and what to do; an operator
 * never sees a stack trace for a stopped stack or a wrong setting. Anything else is a bug: one line (the stack
 * with --debug) and exit 70.
 */
import type { Config } from '../config.ts';
import { LocalSecretError, localServices } from '../dev/local-services.ts';
import { AppError } from '../errors.ts';
import { TemporalTlsError } from '../temporal/tls-check.ts';

/** Socket-level failures of a TCP connection (node's `code` on the error). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);
/** gRPC status UNAVAILABLE: Temporal's client reports an unreachable server with it. */
const GRPC_UNAVAILABLE = 14;

/** `host:port/database` of a PostgreSQL URL: where we looked, without the password. */
function databaseLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

/**
 * Temporal could not be reached before the client's connect deadline. gRPC reports that with a bare
 * "Failed to connect before the deadline", which names neither the service nor the address: the CLI wraps it.
 */
export class TemporalUnreachableError extends Error {
  constructor(cause: unknown) {
    super(firstLine(String((cause as Error)?.message ?? cause)), { cause });
  }
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current && chain.length < 5; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
  }
  return chain;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/**
 * The one line for a failure caused by the CLI's surroundings, or `undefined` when `error` is not one of
 * those (a bug: the caller reports it as an unexpected error). `config` is the configuration as loaded, before
 * the local services were filled in: it tells where the CLI looked and whether that was the dev stack's.
 */
export function describeEnvironmentFailure(error: unknown, config: Config): string | undefined {
  const local = localServices(config);
  const database = databaseLocation(local.databaseUrl);
  const databaseHint = local.embeddedPostgres
    ? 'Is the platform running (npm start)? Otherwise set DATABASE_URL.'
    : 'Check DATABASE_URL.';
  const temporalHint = local.embeddedTemporal
    ? 'Is the platform running (npm start)? Otherwise set TEMPORAL_ADDRESS.'
    : config.temporal.security.tls
      ? 'Check TEMPORAL_ADDRESS and the TEMPORAL_TLS_* settings (docs/temporal.md).'
      : 'Check TEMPORAL_ADDRESS.';
  const chain = causes(error);
  const code = (value: unknown) => (value as { code?: unknown }).code;
  const message = (value: unknown) => firstLine(String((value as { message?: unknown }).message ?? value));

  // Temporal first: its errors wrap a socket error's text, which must not be taken for the database's.
  const temporal = chain.find((link) => link instanceof TemporalUnreachableError || code(link) === GRPC_UNAVAILABLE);
  if (temporal) {
    const tlsFailure = chain.find((link) => link instanceof TemporalTlsError);
    if (tlsFailure) return `${message(tlsFailure)}. ${temporalHint}`;
    const reason = chain.map(message).find((text) => /UNAVAILABLE|ECONNREFUSED|ENOTFOUND/.test(text));
    return `Cannot reach Temporal at ${local.temporalAddress} (${reason ?? message(temporal)}). ${temporalHint}`;
  }
  const socket = chain.find((link) => UNREACHABLE.has(String(code(link))));
  if (socket) return `Cannot reach PostgreSQL at ${database} (${message(socket)}). ${databaseHint}`;
  const sqlState = chain.map(code).find((value) => typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value));
  switch (sqlState) {
    case '28P01':
    case '28000':
      return `PostgreSQL at ${database} refused the credentials (${message(error)}). Check DATABASE_URL.`;
    case '3D000':
      return `PostgreSQL at ${database} has no such database (${message(error)}). Check DATABASE_URL.`;
    case '42P01':
      return `The database at ${database} has no platform schema yet (${message(error)}). Run "campaignctl migrate" (npm start does it).`;
  }
  // Thrown by `decryptJwk` (src/auth/oidc/signing-keys.ts) when building the authorization server.
  if (/decrypts the stored signing key/.test(message(error))) {
    const source = local.cookieSecretFile ? `the development secret in ${local.cookieSecretFile}` : 'COOKIE_SECRETS';
    return `The cookie secret does not decrypt the OAuth signing keys stored in ${database}: the CLI used ${source}, which is not the API's. Set COOKIE_SECRETS to the API's secret(s).`;
  }
  return undefined;
}

/** The line to print and the exit code for a command that threw `error`. */
export function describeFailure(error: unknown, config: Config, debug: boolean): { line: string; exitCode: number } {
  if (error instanceof AppError) return { line: `Error (${error.code}): ${error.message}`, exitCode: 1 };
  const message = (error as Error).message ?? String(error);
  // The sign-in session's own messages (oauth-session.ts) and a missing local secret already say what to do.
  if (/^(Not signed in|The session)/.test(message) || error instanceof LocalSecretError) {
    return { line: message, exitCode: 1 };
  }
  const failure = describeEnvironmentFailure(error, config);
  if (failure) return { line: failure, exitCode: 1 };
  // A bug rather than a setting: still one line (with --debug, the stack for the report).
  return {
    line: debug
      ? ((error as Error).stack ?? message)
      : `Unexpected error: ${message.split('\n')[0]} (run again with --debug for details)`,
    exitCode: 70, // EX_SOFTWARE
  };
}
