/**
 * Who is calling: the result of authentication, bound to exactly one workspace.
 *
 * Every request to the tool server resolves to one `Principal`; the workspace it names is the only workspace
 * the request can see. The workspace is never a tool parameter.
 */
import type { Role } from '../domain/workspaces/roles.ts';
import { actors, type Actor } from '../domain/shared/scope.ts';

export interface Principal {
  /** How the caller authenticated: an API key, an OAuth token, or a signed-in person in the console. */
  via: 'api_key' | 'oauth' | 'session';
  workspaceId: string;
  /** Echoed in every mutating tool result, so agents can tell the user where they acted. */
  workspaceName: string;
  role: Role;
  /** The person behind the credential (the key's creator, or the OAuth user). */
  userId: string | null;
  /**
   * Stable identity of the credential, used as the rate-limit key and in the audit log:
   * `key:<apiKeyId>` or `grant:<grantId>`.
   */
  credentialId: string;
  /** OAuth client id, for OAuth principals. */
  clientId: string | null;
  /** Verified internal clients may use deprecated read actions (spec rule C1). Set by operators only. */
  internal: boolean;
  /** OAuth scopes granted; informational (authorization is by workspace role, not scope). */
  scopes: string[];
}

/** The audit-log actor string for a principal. */
export function actorOf(principal: Principal): Actor {
  if (principal.via === 'api_key') return principal.credentialId as Actor;
  if (principal.via === 'session') return actors.user(principal.userId!);
  return actors.oauthClient(principal.clientId, principal.userId);
}
