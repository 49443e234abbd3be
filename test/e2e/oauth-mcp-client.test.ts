/**
 * A real MCP client bootstraps the whole OAuth flow from the endpoint URL alone: the SDK v2 client with its
 * OAuth provider gets 401, reads the protected-resource and authorization-server metadata, registers, sends
 * the person to /oauth/authorize; a person (headless Chromium) signs in and consents, picking a workspace;
 * the client exchanges the code, lists tools with the bearer token, refreshes, and after revocation gets 401.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
} from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startCallbackServer, type CallbackServer } from '../support/loopback-callback.ts';
import { TestOAuthProvider } from '../support/oauth-client-provider.ts';
import { callWithBearer, revoke } from '../support/oauth-http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

const PASSWORD = 'correct horse battery staple';

let platform: TestPlatform;
let tenant: Tenant;
let second: { id: string; name: string };
let browser: Browser;
let callback: CallbackServer;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'oauthe2e' });
  tenant = await createTenant(platform.container, { password: PASSWORD, name: 'First workspace' });
  const em = acrossWorkspaces(platform.container.orm.em);
  const ws = await platform.container.services.workspaces.createWorkspace(em, {
    name: 'Second workspace',
    ownerUserId: tenant.userId,
  });
  second = { id: ws.id, name: ws.name };
  browser = await launchBrowser();
  callback = await startCallbackServer();
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await platform.close();
  await closeTestFetch();
});

it('bootstraps OAuth from the endpoint URL, works with the bearer token, refreshes, and stops after revocation', async () => {
  const provider = new TestOAuthProvider(callback.redirectUri);
  const mcpUrl = new URL(platform.urls.mcp);
  const client = new Client({ name: 'e2e', version: '1.0.0' });

  // 1. Unauthenticated: the transport follows the 401 challenge through discovery and registration.
  await expect(
    client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: testFetch })),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.info?.client_id).toMatch(/^mcp_/);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.origin).toBe(platform.urls.auth);
  expect(authorizationUrl.pathname).toBe('/oauth/authorize');
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(platform.urls.mcp);
  expect(authorizationUrl.searchParams.get('scope')?.split(' ')).toEqual(
    expect.arrayContaining(['mcp:read', 'mcp:write', 'offline_access']),
  );

  // 2. A person signs in and consents in a real browser, picking the second workspace.
  const page = await browser.newPage();
  await page.goto(authorizationUrl.toString());
  await screenshot(page, 'oauth-sign-in');
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Connect E2E MCP client?' }).waitFor();
  await screenshot(page, 'oauth-consent');
  expect(await page.getByRole('status').textContent()).toContain('loopback address');
  expect(await page.textContent('main')).toContain(new URL(callback.redirectUri).host);
  const redirected = callback.next();
  await page.getByLabel(/Second workspace/).check();
  await page.getByRole('button', { name: 'Allow' }).click();
  const callbackUrl = await redirected;
  await page.close();
  expect(callbackUrl.searchParams.get('state')).toBe(provider.lastState);
  expect(callbackUrl.searchParams.get('iss')).toBe(platform.urls.auth);

  // 3. The client exchanges the code (PKCE) and connects with the bearer token.
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: testFetch });
  await transport.finishAuth(callbackUrl.searchParams);
  expect(provider.stored?.access_token).toEqual(expect.any(String));
  expect(provider.stored?.refresh_token).toEqual(expect.any(String));
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: testFetch }));
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toContain('get_platform_info');
  const organization = await client.callTool({ name: 'get_platform_info', arguments: { topic: 'organization' } });
  expect(organization.structuredContent).toMatchObject({
    organization: { id: second.id, name: 'Second workspace', role: 'owner' },
  });
  await client.close();

  // 4. Refresh: a new access token and a rotated refresh token; the new token works.
  const metadata = await discoverAuthorizationServerMetadata(platform.urls.auth, { fetchFn: testFetch });
  const refreshed = await refreshAuthorization(platform.urls.auth, {
    metadata,
    clientInformation: provider.info!,
    refreshToken: provider.stored!.refresh_token!,
    resource: mcpUrl,
    fetchFn: testFetch,
  });
  expect(refreshed.access_token).not.toBe(provider.stored!.access_token);
  expect(refreshed.refresh_token).not.toBe(provider.stored!.refresh_token);
  provider.saveTokens({ ...provider.stored, ...refreshed });
  expect((await callWithBearer(platform.urls.mcp, refreshed.access_token)).status).toBe(200);

  // 5. Revocation (RFC 7009): the refresh token and the access token; then the server answers 401.
  expect(
    await revoke(platform.urls.auth, {
      token: refreshed.refresh_token!,
      token_type_hint: 'refresh_token',
      client_id: provider.info!.client_id,
    }),
  ).toBe(200);
  expect(
    await revoke(platform.urls.auth, {
      token: refreshed.access_token,
      token_type_hint: 'access_token',
      client_id: provider.info!.client_id,
    }),
  ).toBe(200);
  const raw = await testFetch(platform.urls.mcp, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${refreshed.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(raw.status).toBe(401);
  expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
  // The SDK client, finding its tokens dead (the refresh fails too), falls back to a new authorization.
  provider.authorizationUrl = undefined;
  const again = new Client({ name: 'e2e', version: '1.0.0' });
  await expect(
    again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: testFetch })),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
});
