/**
 * Resolves the credentials of a tool-server request into a workspace-bound `Principal`.
 *
 * Two routes: `Authorization: Bearer <OAuth access token>` and `x-api-key: <workspace API key>`. A token in
 * the query string is refused outright (it would leak into logs and browser history). Every failure is an
 * `UnauthenticatedError` whose code says what is wrong and whether credentials were presented at all (RFC 6750:
 * a challenge to a request without credentials carries no error code).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { roleAtLeast, type Role } from '../domain/workspaces/roles.ts';
import { runPrepared, type PreparedStatement } from '../db/prepared.ts';
import { hashApiKeySecret, looksLikeApiKey } from './api-key-secrets.ts';
import type { Principal } from './principal.ts';
import { UnauthenticatedError, type UnauthenticatedReason } from '../errors.ts';
import { NO_METRICS, type Metrics } from '../observability/metrics.ts';

/** Why credentials were refused; the error's `code` (see `ERROR_TABLE`). */
export type AuthenticationFailureReason = Exclude<UnauthenticatedReason, 'unauthenticated'>;

/** Every refusal of this module: an `UnauthenticatedError` whose code is the reason (one path to 401/400). */
const refused = (reason: AuthenticationFailureReason, message: string) => new UnauthenticatedError(reason, message);

/** Verifies an OAuth bearer token for this resource; throws `UnauthenticatedError('invalid_token')`. */
export type BearerVerifier = (token: string) => Promise<Principal>;

export interface CredentialSource {
  authorization: string | undefined;
  apiKey: string | undefined;
  query: Record<string, unknown>;
}

const QUERY_TOKEN_PARAMETERS = ['access_token', 'api_key', 'apikey', 'x-api-key', 'token'];
/** `last_used_at` is refreshed at most this often per key, so authentication does not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface KeyRow {
  id: string;
  workspace_id: string;
  created_by_id: string | null;
  role: Role;
  disabled_at: Date | string | null;
  last_used_at: Date | string | null;
  deleted_at: Date | string | null;
  workspace_name: string;
  member_role: Role | null;
}

function lowerRole(a: Role, b: Role): Role {
  return roleAtLeast(a, b) ? b : a;
}

/** One indexed query on the hot path: the key, its workspace's state and its creator's current role. */
const API_KEY_LOOKUP: PreparedStatement = {
  name: 'api-key-lookup',
  text: `select k.id, k.workspace_id, k.created_by_id, k.role, k.disabled_at, k.last_used_at, w.deleted_at,
                w.name as workspace_name, m.role as member_role
           from api_keys k
           join workspaces w on w.id = k.workspace_id
           left join memberships m on m.workspace_id = k.workspace_id and m.user_id = k.created_by_id
          where k.secret_hash = $1`,
};

/**
 * API-key lookups, remembered for a short while per secret hash (unknown keys too, so guessing costs the
 * database nothing). At serving rates the lookup was one of a tool call's three statements. What a cached
 * lookup may miss — a key disabled, a member removed or demoted, a workspace deleted — is forgotten at once
 * on the instance that made the change (the workspaces service calls `clear`), and on other instances (or
 * after a CLI change) within `ttlMs`.
 */
export interface ApiKeyCache {
  get(secretHash: string): { row: KeyRow | null } | undefined;
  set(secretHash: string, row: KeyRow | null): void;
  /** Forgets every remembered lookup: call after anything that changes what a key may do. */
  clear(): void;
}

export function createApiKeyCache(options: { ttlMs: number }): ApiKeyCache {
  if (options.ttlMs <= 0) return { get: () => undefined, set: () => undefined, clear: () => undefined };
  const entries = new LRUCache<string, { row: KeyRow | null }>({ max: 10_000, ttl: options.ttlMs });
  return {
    get: (secretHash) => entries.get(secretHash),
    set: (secretHash, row) => entries.set(secretHash, { row }),
    clear: () => entries.clear(),
  };
}

export function createAuthenticator(deps: {
  orm: MikroORM;
  verifyBearer?: BearerVerifier;
  apiKeys: ApiKeyCache;
  /** Where refusals are counted, by reason (the error code). */
  metrics?: Pick<Metrics, 'authFailure'>;
}) {
  const metrics = deps.metrics ?? NO_METRICS;

  async function lookUp(secretHash: string): Promise<{ key: KeyRow | undefined; fresh: boolean }> {
    const cached = deps.apiKeys.get(secretHash);
    if (cached) return { key: cached.row ?? undefined, fresh: false };
    const rows = await runPrepared<KeyRow>(deps.orm, API_KEY_LOOKUP, [secretHash]);
    deps.apiKeys.set(secretHash, rows[0] ?? null);
    return { key: rows[0], fresh: true };
  }

  async function authenticateApiKey(secret: string): Promise<Principal> {
    if (!looksLikeApiKey(secret)) {
      throw refused(
        'malformed_api_key',
        'Malformed API key: expected "cpk_" followed by 43 characters, as shown once when the key was created',
      );
    }
    const { key, fresh } = await lookUp(hashApiKeySecret(secret));
    if (!key) throw refused('unknown_api_key', 'Unknown API key');
    if (key.deleted_at) throw refused('unknown_api_key', "This API key's workspace was deleted");
    if (key.disabled_at) {
      throw refused(
        'disabled_api_key',
        `This API key was disabled on ${new Date(key.disabled_at).toISOString()}; create a new one in Settings > API keys`,
      );
    }
    // A key never outranks the person who made it: if their role went down, so does the key's; if they left
    // the workspace, the key stops working.
    let role = key.role;
    if (key.created_by_id) {
      if (!key.member_role) {
        throw refused(
          'api_key_creator_removed',
          "This API key's creator is no longer a member of the workspace; create a new key",
        );
      }
      role = lowerRole(key.role, key.member_role);
    }
    // Only on a fresh read: a remembered row's last_used_at is as old as the row.
    if (fresh && (!key.last_used_at || Date.now() - new Date(key.last_used_at).getTime() > LAST_USED_RESOLUTION_MS)) {
      // Fire and forget: bookkeeping must not slow down or fail the request.
      void deps.orm.em
        .getConnection()
        .execute('update api_keys set last_used_at = now() where id = ?', [key.id])
        .catch(() => undefined);
    }
    return {
      via: 'api_key',
      workspaceId: key.workspace_id,
      workspaceName: key.workspace_name,
      role,
      userId: key.created_by_id,
      credentialId: `key:${key.id}`,
      clientId: null,
      internal: false,
      scopes: [],
    };
  }

  async function authenticate(source: CredentialSource): Promise<Principal> {
    if (QUERY_TOKEN_PARAMETERS.some((name) => source.query[name] !== undefined)) {
      throw refused(
        'token_in_query',
        'Credentials in the query string are refused: send Authorization: Bearer <token> or an x-api-key header',
      );
    }
    const authorization = source.authorization?.trim();
    const apiKey = source.apiKey?.trim();
    // Two credentials could name two workspaces or two people; acting on either would be a guess, and
    // accepting a garbage one beside a valid one hides a client bug (or a probe). One request, one credential.
    if (authorization && apiKey) {
      throw refused(
        'conflicting_credentials',
        'Send exactly one credential: either Authorization: Bearer <access token> or x-api-key, not both',
      );
    }
    if (authorization) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      if (!match?.[1]) {
        throw refused('invalid_token', 'The Authorization header must be "Bearer <access token>"');
      }
      if (!deps.verifyBearer) throw refused('invalid_token', 'The access token is not valid');
      return deps.verifyBearer(match[1]);
    }
    if (apiKey) return authenticateApiKey(apiKey);
    throw refused(
      'missing_credentials',
      'Authentication required: send Authorization: Bearer <access token> (OAuth) or x-api-key: <workspace API key>',
    );
  }

  return {
    async authenticate(source: CredentialSource): Promise<Principal> {
      try {
        return await authenticate(source);
      } catch (error) {
        if (error instanceof UnauthenticatedError) metrics.authFailure(error.code);
        throw error;
      }
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
