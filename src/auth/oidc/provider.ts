/**
 * The OAuth 2.1 authorization server (oidc-provider 9) on the auth host.
 *
 * Shape chosen for MCP clients (see ../shared/reference/standards-and-formats.md §1–2):
 * - issuer = AUTH_URL with no path, so RFC 8414 metadata is at `/.well-known/oauth-authorization-server`;
 * - routes under `/oauth/*`; dynamic registration open (a body of `client_name` + `redirect_uris` registers a
 *   public client with the code and refresh grants); client ID metadata documents resolved through our SSRF
 *   guard without following redirects;
 * - redirect URIs only where the client alone receives them (redirect-uris.ts); PKCE S256 required for every
 *   client; exact redirect matching, any port for loopback redirects of native clients (registrations whose
 *   redirects all stay on the device default to native);
 * - one resource: `{platform_url}/api/mcp` (RFC 8707), opaque access tokens stored in PostgreSQL so
 *   revocation takes effect at once; refresh tokens for every client registered for the `refresh_token`
 *   grant (see `issuesRefreshTokens`), rotated on every use (reuse of a rotated token revokes the grant);
 * - every grant is bound to the one workspace the person picks on the consent page; the workspace id travels
 *   in each access token's stored claims.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config.ts';
import { User } from '../../domain/workspaces/user.entity.ts';
import type { Logger } from '../../logger.ts';
import type { SafeFetch } from '../../net/safe-fetch.ts';
import { createAdapterFactory } from './adapter.ts';
import { nativeOnly, redirectUrisProblem } from './redirect-uris.ts';
import { OAuthGrantBinding } from './oidc.entities.ts';
import { MCP_SCOPES } from '../scopes.ts';
import { loadSigningKeys } from './signing-keys.ts';
import { renderOAuthError } from './views.ts';

/**
 * Every scope this authorization server accepts, and exactly what its metadata advertises in
 * `scopes_supported`: the MCP scopes, `offline_access` (a client asking for a refresh token, SEP-2207) and
 * `openid` (an ID token naming the account — `sub` only, no profile claims). Anything else is refused with
 * `invalid_scope` rather than silently dropped, so a client learns at once that it asked for something this
 * server does not grant.
 */
export const SUPPORTED_SCOPES = ['openid', ...MCP_SCOPES, 'offline_access'] as const;
export const CLI_CLIENT_ID = 'campaignctl';
/** A metadata property no client sends; declaring it makes the provider run our client validator. */
const CLIENT_RULES_PROPERTY = 'urn:campaign-platform:client-rules';

/** RFC 8707 resource values compare without query, fragment or trailing slash, with scheme and host lower-cased. */
export function canonicalResource(value: string): string | undefined {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

/**
 * Refresh-token policy: a client registered for the `refresh_token` grant gets a refresh token, whether or not
 * it also asked for `offline_access`. The MCP authorization rules put the decision with the authorization
 * server (SEP-2207, final in the 2026 draft): resource servers must not list `offline_access` among their
 * scopes, so a stock client that asks for exactly what the protected-resource metadata lists — SDK v1 does —
 * never asks for it, and would otherwise have to send the person through the browser every hour. OAuth 2.1
 * (§4.3.1) and RFC 9700 §4.14.2 allow refresh tokens for public clients when they are sender-constrained or
 * rotated; ours are rotated on every use and a replayed one revokes the whole grant. `offline_access` stays
 * advertised in the authorization server's metadata as the explicit way to ask (SDK v2 adds it when the
 * client has the grant), and a client registered without the grant gets none either way.
 */
export function issuesRefreshTokens(client: { grantTypeAllowed(grantType: string): boolean }): boolean {
  return client.grantTypeAllowed('refresh_token');
}

export interface OidcDeps {
  config: Config;
  orm: MikroORM;
  log: Logger;
  safeFetch: SafeFetch;
}

const ONE_HOUR = 60 * 60;
const ONE_DAY = 24 * ONE_HOUR;

export async function createOidcProvider(deps: OidcDeps): Promise<Provider> {
  const { config, orm } = deps;
  const mcpResource = config.urls.mcp;
  const secure = config.urls.auth.startsWith('https:');
  const accessTokenTtl = config.oauthAccessTokenTtlSeconds;
  const jwks = await loadSigningKeys(orm, config.secrets.cookieKeys);

  const configuration: Configuration = {
    adapter: createAdapterFactory(orm) as never,
    jwks: jwks as never,
    clients: [
      {
        // The operator CLI signs people in as a native app: loopback redirect on any port, PKCE, no secret.
        client_id: CLI_CLIENT_ID,
        client_name: 'campaignctl (operator CLI)',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    ],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    // Authorization code flow only (OAuth 2.1): no implicit or hybrid responses.
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    async findAccount(_ctx, id) {
      const user = await orm.em.fork().findOne(User, { id });
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id }) };
    },
    // No identity claims are released: the platform is an API authorization server, not a login provider.
    claims: { openid: ['sub'] },
    scopes: [...SUPPORTED_SCOPES],
    extraParams: {
      // Runs for authorization and PAR requests after the client and its redirect URI are verified, so the
      // refusal goes back to the client's redirect URI as an OAuth error.
      scope(_ctx, value) {
        const unsupported = (value ?? '')
          .split(' ')
          .filter((scope) => scope && !(SUPPORTED_SCOPES as readonly string[]).includes(scope));
        if (unsupported.length) {
          throw new errors.InvalidScope(
            `unsupported scope ${unsupported.map((scope) => `"${scope}"`).join(', ')}; ` +
              `this authorization server supports ${SUPPORTED_SCOPES.join(', ')}`,
            unsupported.join(' '),
          );
        }
      },
    },
    cookies: {
      keys: config.secrets.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure },
    },
    pkce: { required: () => true },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      revocation: '/oauth/token/revoke',
      jwks: '/oauth/jwks',
      end_session: '/oauth/logout',
      pushed_authorization_request: '/oauth/par',
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: {
        enabled: true,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
        idFactory: () => `mcp_${crypto.randomUUID().replace(/-/g, '')}`,
      },
      revocation: {
        enabled: true,
        // A client may revoke only its own tokens; for someone else's token a public client gets the same
        // 200 as for an unknown token (RFC 7009), so tokens cannot be probed.
        async allowedPolicy(_ctx, client, token) {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpResource,
        useGrantedResource: () => true,
        async getResourceServerInfo(_ctx, resourceIndicator) {
          if (canonicalResource(resourceIndicator) !== canonicalResource(mcpResource)) {
            throw new errors.InvalidTarget(
              `unknown resource; this authorization server issues tokens for ${mcpResource} only`,
            );
          }
          return {
            scope: MCP_SCOPES.join(' '),
            audience: mcpResource,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: 'opaque',
          };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: ONE_DAY },
      },
    },
    // Client metadata documents (and any other outgoing request) go through the platform's SSRF guard.
    fetch: (url, init) => deps.safeFetch.guardedFetch(url, init as RequestInit) as never,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      RefreshToken: 30 * ONE_DAY,
      Grant: 365 * ONE_DAY,
      Interaction: ONE_HOUR,
      Session: 14 * ONE_DAY,
      IdToken: ONE_HOUR,
    },
    issueRefreshToken: async (_ctx, client) => issuesRefreshTokens(client),
    rotateRefreshToken: () => true,
    // Tokens live as long as their grant (a connected app, revoked from the dashboard), not as long as the
    // browser session that consented: otherwise a second connection of the same app from the same browser,
    // or the session's end, would silently kill the first connection's refresh token.
    expiresWithSession: async () => false,
    // Each authorization asks the person again which workspace to bind (a grant is one workspace), so only a
    // grant decided in this very interaction is reused.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    async extraTokenClaims(_ctx, token) {
      const grantId = (token as { grantId?: string }).grantId;
      if (!grantId) return undefined;
      const binding = await orm.em.fork().findOne(OAuthGrantBinding, { grantId });
      return binding ? { workspace_id: binding.workspace.id } : undefined;
    },
    extraClientMetadata: {
      properties: [CLIENT_RULES_PROPERTY],
      // The provider calls this for every client it builds — registrations, client ID metadata documents,
      // stored and static clients — before its own checks, so our redirect rule (redirect-uris.ts) holds for
      // all of them: a stored client that breaks it no longer loads. An error whose description starts with
      // "redirect_uris" is answered as `invalid_redirect_uri`.
      validator(_ctx, key, _value, metadata) {
        if (key !== CLIENT_RULES_PROPERTY) return;
        const record = metadata as Record<string, unknown>;
        delete record[CLIENT_RULES_PROPERTY];
        const problem = redirectUrisProblem(record.redirect_uris);
        if (problem) throw new errors.InvalidClientMetadata(problem);
        // MCP clients usually register loopback redirect URIs without `application_type`; as `web` clients
        // they would need exact ports, and their ports change per run. Clients whose redirects all stay on
        // the person's device are native apps (loopback redirects then match on any port, RFC 8252 §7.3).
        if (nativeOnly(record.redirect_uris)) record.application_type = 'native';
      },
    },
    renderError: async (ctx, out, error) =>
      renderOAuthError(ctx as KoaContextWithOIDC, out as unknown as Record<string, unknown>, error),
    discovery: { service_documentation: `${config.urls.base}/llms.txt` },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
  };

  const provider = new Provider(config.urls.auth, configuration);
  provider.proxy = config.http.trustProxy;

  provider.on('server_error', (_ctx, error) => deps.log.error({ err: error }, 'authorization server error'));
  return provider;
}
