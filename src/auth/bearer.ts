/**
 * Verifies OAuth access tokens for the tool server (the resource server side).
 *
 * Tokens are opaque and looked up in the authorization server's store, so an expired, revoked or unknown
 * token fails at once. The token must have been issued for this resource (its audience is the MCP URL); its
 * grant must still be bound to a live workspace the person is still a member of. The person's current role
 * applies, capped to viewer when the grant lacks `mcp:write`.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Role } from '../domain/workspaces/roles.ts';
import type { BearerVerifier } from './authenticate.ts';
import { UnauthenticatedError } from '../errors.ts';
import { canonicalResource } from './oidc/provider.ts';
import type { Principal } from './principal.ts';

interface BindingRow {
  workspace_id: string;
  user_id: string;
  client_id: string;
  revoked_at: Date | null;
  last_used_at: Date | null;
  role: Role | null;
  deleted_at: Date | null;
  workspace_name: string;
  internal: boolean | null;
}

const LAST_USED_RESOLUTION_MS = 60_000;
const invalid = (message: string) => new UnauthenticatedError('invalid_token', message);

export function createBearerVerifier(deps: { provider: Provider; orm: MikroORM; config: Config }): BearerVerifier {
  const expectedAudience = canonicalResource(deps.config.urls.mcp);

  return async (token: string): Promise<Principal> => {
    if (token.length > 512) throw invalid('The access token is not valid');
    const accessToken = await deps.provider.AccessToken.find(token);
    if (!accessToken || accessToken.isExpired) throw invalid('The access token is invalid, expired or revoked');
    const audiences = ([] as string[]).concat((accessToken.aud as string | string[] | undefined) ?? []);
    if (!audiences.some((aud) => canonicalResource(aud) === expectedAudience)) {
      throw invalid('The access token was issued for another resource');
    }
    const grantId = accessToken.grantId;
    if (!grantId) throw invalid('The access token is not bound to a grant');
    const rows = await deps.orm.em.getConnection().execute<BindingRow[]>(
      `select b.workspace_id, b.user_id, b.client_id, b.revoked_at, b.last_used_at, m.role, w.deleted_at, w.name as workspace_name, f.internal
       from oauth_grant_bindings b
       join workspaces w on w.id = b.workspace_id
       left join memberships m on m.workspace_id = b.workspace_id and m.user_id = b.user_id
       left join oauth_client_flags f on f.client_id = b.client_id
       where b.grant_id = ?`,
      [grantId],
    );
    const binding = rows[0];
    if (!binding || binding.revoked_at) throw invalid('This connection was revoked; connect the app again');
    if (binding.deleted_at) throw invalid('The workspace of this connection was deleted');
    if (!binding.role) throw invalid('You are no longer a member of the workspace this connection is bound to');
    const scopes = String(accessToken.scope ?? '')
      .split(' ')
      .filter(Boolean);
    if (!binding.last_used_at || Date.now() - new Date(binding.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
      void deps.orm.em
        .getConnection()
        .execute('update oauth_grant_bindings set last_used_at = now() where grant_id = ?', [grantId])
        .catch(() => undefined);
    }
    return {
      via: 'oauth',
      workspaceId: binding.workspace_id,
      workspaceName: binding.workspace_name,
      // A read-only grant acts as a viewer whatever the person's role; otherwise the person's current role.
      role: scopes.includes('mcp:write') ? binding.role : 'viewer',
      userId: binding.user_id,
      credentialId: `grant:${grantId}`,
      clientId: binding.client_id,
      internal: binding.internal === true,
      scopes,
    };
  };
}
