/**
 * A second, independent OAuth client library (oauth4webapi, by the author of oidc-provider but with no shared
 * code path with the MCP SDK) passes registration, the PKCE code flow (the person in headless Chromium),
 * refresh-token rotation (a replayed refresh token kills the grant) and revocation.
 */
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startCallbackServer, type CallbackServer } from '../support/loopback-callback.ts';
import { callWithBearer } from '../support/oauth-http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const PASSWORD = 'correct horse battery staple';
let platform: TestPlatform;
let tenant: Tenant;
let browser: Browser;
let callback: CallbackServer;

// oauth4webapi refuses plain-http issuers unless told otherwise; the local stack is http on *.localhost.
const options = { [oauth.customFetch]: testFetch, [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'oauth4webapi' });
  tenant = await createTenant(platform.container, { password: PASSWORD });
  browser = await launchBrowser();
  callback = await startCallbackServer();
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await platform.close();
  await closeTestFetch();
});

it('registers, runs PKCE, rotates refresh tokens (reuse revokes the grant) and revokes', async () => {
  const issuer = new URL(platform.urls.auth);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
  );
  expect(as.code_challenge_methods_supported).toEqual(['S256']);

  // Dynamic registration.
  const registration = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: 'oauth4webapi client', redirect_uris: [callback.redirectUri], application_type: 'native' },
    options,
  );
  const client = (await oauth.processDynamicClientRegistrationResponse(registration)) as oauth.Client;
  expect(client.token_endpoint_auth_method).toBe('none');
  const auth = oauth.None();

  // PKCE authorization code flow.
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: callback.redirectUri,
    response_type: 'code',
    scope: 'mcp:read mcp:write offline_access',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: platform.urls.mcp,
  }).toString();
  const page = await browser.newPage();
  await page.goto(url.toString());
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const redirected = callback.next();
  await page.getByRole('button', { name: 'Allow' }).click();
  const callbackUrl = await redirected;
  await page.close();
  const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
  const tokenResponse = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    auth,
    params,
    callback.redirectUri,
    verifier,
    {
      ...options,
      additionalParameters: { resource: platform.urls.mcp },
    },
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
  expect(tokens.refresh_token).toEqual(expect.any(String));
  expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(200);

  // Refresh rotation.
  const rotated = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options),
  );
  expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
  expect((await callWithBearer(platform.urls.mcp, rotated.access_token)).status).toBe(200);

  // Replaying the consumed refresh token: invalid_grant, and the whole grant dies with it.
  await expect(
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options),
    ),
  ).rejects.toMatchObject({ error: 'invalid_grant' });
  await expect(
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, rotated.refresh_token!, options),
    ),
  ).rejects.toMatchObject({ error: 'invalid_grant' });
  expect((await callWithBearer(platform.urls.mcp, rotated.access_token)).status).toBe(401);

  // Revocation of a live token (a fresh authorization), idempotent.
  const verifier2 = oauth.generateRandomCodeVerifier();
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier2));
  const page2 = await browser.newPage();
  await page2.goto(url.toString());
  if (
    await page2
      .getByLabel('Password')
      .isVisible()
      .catch(() => false)
  ) {
    await page2.getByLabel('Email').fill(tenant.email);
    await page2.getByLabel('Password').fill(PASSWORD);
    await page2.getByRole('button', { name: 'Sign in' }).click();
  }
  const redirected2 = callback.next();
  await page2.getByRole('button', { name: 'Allow' }).click();
  const callbackUrl2 = await redirected2;
  await page2.close();
  const fresh = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      oauth.validateAuthResponse(as, client, callbackUrl2, state),
      callback.redirectUri,
      verifier2,
      options,
    ),
  );
  expect((await callWithBearer(platform.urls.mcp, fresh.access_token)).status).toBe(200);
  for (let i = 0; i < 2; i += 1) {
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, fresh.access_token, options));
  }
  expect((await callWithBearer(platform.urls.mcp, fresh.access_token)).status).toBe(401);
});
