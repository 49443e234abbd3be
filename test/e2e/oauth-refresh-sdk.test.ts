/**
 * Stock MCP SDK clients that connected once keep working after their access token expires, without a
 * browser: the v1 SDK (which asks for exactly the protected-resource metadata's scopes, so never for
 * `offline_access`) and the v2 client registered with a minimal body (which adds `offline_access` only when its
 * own metadata names the refresh_token grant). Access tokens live 2 seconds here (OAUTH_ACCESS_TOKEN_TTL_SECONDS).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { TestOAuthProvider } from '../support/oauth-client-provider.ts';
import { completeAuthorization } from '../support/oauth-http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const PASSWORD = 'correct horse battery staple';
const TTL_SECONDS = 2;
const REDIRECT = 'http://127.0.0.1:47321/callback';

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform({
    label: 'oauthrefresh',
    env: { OAUTH_ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) },
  });
  tenant = await createTenant(platform.container, { password: PASSWORD, name: 'Refresh workspace' });
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

/** The person's one visit to the browser: sign in, pick the workspace, allow. Returns the callback's query. */
async function consentOnce(provider: TestOAuthProvider): Promise<URLSearchParams> {
  expect(provider.authorizationUrl).toBeDefined();
  const { redirect } = await completeAuthorization(provider.authorizationUrl!.toString(), {
    authUrl: platform.urls.auth,
    email: tenant.email,
    password: PASSWORD,
    workspaceId: tenant.workspaceId,
  });
  expect(redirect!.origin + redirect!.pathname).toBe(REDIRECT);
  provider.authorizationUrl = undefined;
  return redirect!.searchParams;
}

/**
 * A deliberate pause, not a wait for anything: the access token must really expire (its lifetime is on the
 * server's clock, which the test does not set) for the SDK to meet the 401 that makes it refresh.
 */
const letTimePass = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function whoAmI(client: { callTool(params: { name: string; arguments: Record<string, unknown> }): unknown }) {
  const result = (await client.callTool({ name: 'get_platform_info', arguments: { topic: 'organization' } })) as {
    isError?: boolean;
    structuredContent?: { organization?: { id?: string } };
  };
  expect(result.isError).toBeFalsy();
  return result.structuredContent?.organization;
}

it('keeps a stock SDK v1 client working past access-token expiry without a browser', async () => {
  const provider = new TestOAuthProvider(REDIRECT, { client_name: 'Stock SDK v1 client' });
  const url = new URL(platform.urls.mcp);
  const first = new ClientV1({ name: 'v1', version: '1.0.0' });
  const transport = new TransportV1(url, { authProvider: provider as never, fetch: testFetch });
  await expect(first.connect(transport)).rejects.toThrow(/Unauthorized/);
  // What the v1 SDK asked for: the resource's scopes, nothing else.
  expect(provider.authorizationUrl!.searchParams.get('scope')).toBe('mcp:read mcp:write');
  await transport.finishAuth((await consentOnce(provider)).get('code')!);
  expect(provider.stored?.refresh_token).toEqual(expect.any(String));

  const client = new ClientV1({ name: 'v1', version: '1.0.0' });
  await client.connect(new TransportV1(url, { authProvider: provider as never, fetch: testFetch }));
  await whoAmI(client);
  const firstTokens = provider.stored!;

  await letTimePass(TTL_SECONDS * 1000 + 1500);
  // The access token has expired; the SDK refreshes on the 401 and retries — no authorization URL.
  await whoAmI(client);
  expect(provider.authorizationUrl).toBeUndefined();
  expect(provider.stored!.access_token).not.toBe(firstTokens.access_token);
  expect(provider.stored!.refresh_token).not.toBe(firstTokens.refresh_token);
  await client.close();
});

it('keeps a stock SDK v2 client registered with a minimal body working past access-token expiry', async () => {
  // No grant_types in the registration (the server's default grants both): the v2 client then does not add
  // offline_access, and before the refresh policy it got no refresh token.
  const provider = new TestOAuthProvider(REDIRECT, { client_name: 'Stock SDK v2 client', grant_types: undefined });
  const url = new URL(platform.urls.mcp);
  const first = new ClientV2({ name: 'v2', version: '1.0.0' });
  const transport = new TransportV2(url, { authProvider: provider, fetch: testFetch });
  await expect(first.connect(transport)).rejects.toThrow(/Unauthorized/);
  await transport.finishAuth(await consentOnce(provider));
  expect(provider.stored?.refresh_token).toEqual(expect.any(String));

  const client = new ClientV2({ name: 'v2', version: '1.0.0' });
  await client.connect(new TransportV2(url, { authProvider: provider, fetch: testFetch }));
  await whoAmI(client);
  const firstTokens = provider.stored!;

  await letTimePass(TTL_SECONDS * 1000 + 1500);
  await whoAmI(client);
  expect(provider.authorizationUrl).toBeUndefined();
  expect(provider.stored!.access_token).not.toBe(firstTokens.access_token);
  expect(provider.stored!.refresh_token).not.toBe(firstTokens.refresh_token);
  await client.close();
});
