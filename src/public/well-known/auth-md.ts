/**
 * `auth.md`: how an agent gets a credential for the tool server, step by step, with this deployment's real
 * URLs (spec G, "Authentication" 1–3). Served by every brand host and by the root site; a brand host's copy
 * first says that reading the brand itself needs none of it.
 */
import type { PlatformLinks } from '../brand-site/site-model.ts';
import { REFRESH_SCOPE, TOOL_SERVER_SCOPES, toolServerUrls } from './tool-server.ts';

export type AuthMarkdownAudience = { kind: 'root' } | { kind: 'brand'; brandName: string; origin: string };

export function renderAuthMarkdown(links: PlatformLinks, audience: AuthMarkdownAudience): string {
  const urls = toolServerUrls(links);
  const scopes = TOOL_SERVER_SCOPES.join(' ');
  const encodedResource = encodeURIComponent(urls.mcp);
  const encodedScope = encodeURIComponent(`${scopes} ${REFRESH_SCOPE}`);

  const intro =
    audience.kind === 'brand'
      ? [
          `> Reading ${audience.brandName} needs none of this. Everything on ${audience.origin} — its pages (also as`,
          `> markdown with \`Accept: text/markdown\`), \`/llms.txt\`, \`POST /ask\`, the agent card and the skills — is`,
          '> anonymous: no account, no OAuth, no API key, no MCP session. Send no credential there.',
          '',
          'The steps below are only for **operating** a workspace on the campaign platform (creating, publishing and',
          'deploying campaigns, reading analytics) through its tool server.',
        ]
      : [
          '> This site is anonymous: it sets no cookie and accepts no credential. The steps below are for the tool',
          '> server, which operates one workspace of the campaign platform per connection.',
        ];

  const lines = [
    '# Authorizing an agent for the campaign platform tool server',
    '',
    ...intro,
    '',
    `Tool server (MCP, Streamable HTTP, JSON responses): \`${urls.mcp}\``,
    '',
    'Every request to it carries exactly one credential: `Authorization: Bearer <ACCESS_TOKEN>` (OAuth) or',
    '`x-api-key: <API_KEY>` (a workspace API key). Each credential is bound to one workspace; another',
    "workspace's data is never reachable with it. Credentials in the query string are refused.",
    '',
    '## Before you start',
    '',
    `A human with a platform account must exist: sign-up happens in the dashboard at ${urls.dashboard} and`,
    'cannot be done by an agent. That person signs in during the OAuth flow (or creates the API key).',
    '',
    '## Option 1: let your MCP client do it',
    '',
    `Configure a remote HTTP MCP server with the URL \`${urls.mcp}\`. A spec-compliant client needs nothing`,
    'else: on the first 401 it discovers the authorization server, registers itself, opens the browser for the',
    'person to sign in and consent, and stores the tokens.',
    '',
    '## Option 2: OAuth 2.1 with PKCE, step by step',
    '',
    `1. Call \`POST ${urls.mcp}\` without a credential. The answer is \`401\` with`,
    `   \`WWW-Authenticate: Bearer resource_metadata="${urls.protectedResourceMetadata}"\`.`,
    `2. \`GET ${urls.protectedResourceMetadata}\` (RFC 9728; also at`,
    `   \`${urls.protectedResourceMetadataPathDerived}\`). \`resource\` is \`${urls.mcp}\`,`,
    `   \`authorization_servers[0]\` is \`${urls.issuer}\`, \`scopes_supported\` is \`${JSON.stringify(TOOL_SERVER_SCOPES)}\`.`,
    `3. \`GET ${urls.authorizationServerMetadata}\` (RFC 8414) for the endpoints below;`,
    '   `code_challenge_methods_supported` contains `S256`.',
    `4. Register a client: \`POST ${urls.registration}\` with \`Content-Type: application/json\` and`,
    '   `{"client_name": "My agent", "redirect_uris": ["http://127.0.0.1:8765/callback"]}` (RFC 7591). The answer',
    '   (`201`) holds your `client_id`. It is a public client: no secret, and `token_endpoint_auth_method` is',
    '   `none`. Loopback redirect URIs match on any port. A client ID metadata document URL may be used as',
    '   `client_id` instead of registering.',
    '5. Make a PKCE pair: `code_verifier` = 43–128 random characters from `[A-Za-z0-9-._~]`;',
    '   `code_challenge` = BASE64URL(SHA-256(code_verifier)) without padding. Only `S256` is accepted.',
    '6. Send the person to the authorization endpoint in a browser:',
    '',
    '   ```',
    `   ${urls.authorization}?response_type=code&client_id=<client_id>&redirect_uri=<redirect_uri>`,
    `     &scope=${encodedScope}&code_challenge=<code_challenge>&code_challenge_method=S256`,
    `     &resource=${encodedResource}&state=<random>`,
    '   ```',
    '',
    `   Scopes: \`${scopes}\` (\`${REFRESH_SCOPE}\` may be added; a refresh token does not need it).`,
    '   The person signs in, picks the workspace this connection will act on and consents. The browser is redirected to',
    '   `<redirect_uri>?code=<code>&state=<state>&iss=<issuer>`; check `state`. The code is valid for 60 seconds.',
    `7. Exchange the code: \`POST ${urls.token}\` with \`Content-Type: application/x-www-form-urlencoded\`:`,
    `   \`grant_type=authorization_code&code=<code>&redirect_uri=<redirect_uri>&client_id=<client_id>&code_verifier=<code_verifier>&resource=${encodedResource}\`.`,
    '   The answer has `access_token` (valid one hour), `token_type` `Bearer`, `expires_in`, `scope`, and',
    '   `refresh_token` when the client is registered for the `refresh_token` grant (the registration default).',
    `8. Call \`POST ${urls.mcp}\` with \`Authorization: Bearer <access_token>\` on every request.`,
    `9. Refresh before or after expiry: \`POST ${urls.token}\` with`,
    '   `grant_type=refresh_token&refresh_token=<refresh_token>&client_id=<client_id>`. Refresh tokens rotate:',
    '   keep the new one from each answer. Presenting an already used refresh token revokes the whole grant.',
    `10. Revoke when done: \`POST ${urls.revocation}\` with`,
    '    `token=<token>&token_type_hint=access_token&client_id=<client_id>` (or `refresh_token`, RFC 7009). The',
    '    answer is `200` whether or not the token was still valid, so repeating it is safe.',
    '',
    `Scopes are generic (\`${scopes}\`): what a connection may do is decided by the workspace and the`,
    "person's role in it, not by scopes. There is no device-authorization grant and no claim-polling grant.",
    '',
    '## Option 3: a workspace API key (headless)',
    '',
    `1. A workspace admin signs in to the dashboard at ${urls.dashboard}, opens the workspace's`,
    '   **Settings → API keys** page and creates a key. The key is shown once; the same page lists and',
    '   disables keys.',
    `2. Send it on every request to \`${urls.mcp}\` as the header \`x-api-key: <API_KEY>\`.`,
    '',
    'One key acts on one workspace. For several workspaces, use one key (or one OAuth connection) per',
    'workspace, and call `get_platform_info` with `topic: "organization"` to confirm which one you are on.',
    '',
    '## Errors',
    '',
    `- \`401\` with \`WWW-Authenticate: Bearer … resource_metadata="${urls.protectedResourceMetadata}"\`: the`,
    '  credential is missing, expired, revoked or unknown. With OAuth, refresh (step 9) or start again at step 1;',
    '  with an API key, ask an admin whether the key was disabled.',
    '- `429` with `Retry-After`: the per-credential rate limit was hit. Wait the number of seconds it names',
    '  before the next request; do not retry in a loop.',
    '- `403` on `/api/mcp` with no `WWW-Authenticate`: the request came from a browser origin that is not',
    '  allowed. Tool-level refusals (a role without the permission) are tool results with `isError: true`.',
    '',
    '## See also',
    '',
    `- [Platform overview for agents](${urls.llmsTxt})`,
    `- [MCP server card](${urls.serverCard}): the default tool set and this OAuth metadata`,
    `- [API catalog](${urls.apiCatalog})`,
    '',
  ];
  return lines.join('\n');
}
