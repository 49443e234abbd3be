/**
 * The authorization server and the resource server over real HTTP: metadata, dynamic registration, the code
 * flow with PKCE, refresh rotation, revocation, and the security rules — each asserting the exact status and
 * error code.
 */
import { randomBytes } from 'node:crypto';
import { createAdapterFactory, storedOidcId } from '../../src/auth/oidc/adapter.ts';
import { Migration20261125100000_hashed_oidc_ids } from '../../src/db/migrations/Migration20261125100000_hashed_oidc_ids.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { User } from '../../src/domain/workspaces/user.entity.ts';
import {
  Browserless,
  authorizationCodeTokens,
  authorizeOverHttp,
  callWithBearer,
  pkce,
  registerClient,
  revoke,
  tokenRequest,
} from '../support/oauth-http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let tenant: Tenant;
let authUrl: string;
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:45123/callback';

async function newClient(extra: Record<string, unknown> = {}) {
  const { status, json } = await registerClient(authUrl, {
    client_name: 'Security test client',
    redirect_uris: [REDIRECT],
    ...extra,
  });
  expect(status).toBe(201);
  return json.client_id as string;
}

let shared: Promise<string> | undefined;
/** One client for tests that only need some client: registrations are rate-limited per address. */
function sharedClient(): Promise<string> {
  shared ??= newClient();
  return shared;
}

/** A full code flow; returns the token response. */
async function issueTokens(clientId: string, scope = 'mcp:read mcp:write offline_access') {
  const tokens = await authorizationCodeTokens({
    authUrl,
    clientId,
    redirectUri: REDIRECT,
    scope,
    email: tenant.email,
    password: PASSWORD,
    workspaceId: tenant.workspaceId,
    resource: platform.urls.mcp,
  });
  expect(tokens.status).toBe(200);
  return { tokens: tokens.json, code: tokens.code, verifier: tokens.verifier };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'oauth' });
  tenant = await createTenant(platform.container, { password: PASSWORD, name: 'OAuth workspace' });
  authUrl = platform.urls.auth;
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

describe('metadata', () => {
  it('publishes RFC 8414 authorization-server metadata with a path-less issuer and S256 only', async () => {
    const response = await testFetch(`${authUrl}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, any>;
    expect(metadata).toMatchObject({
      issuer: authUrl,
      authorization_endpoint: `${authUrl}/oauth/authorize`,
      token_endpoint: `${authUrl}/oauth/token`,
      registration_endpoint: `${authUrl}/oauth/register`,
      revocation_endpoint: `${authUrl}/oauth/token/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write', 'offline_access']));
    expect(new URL(metadata.issuer).pathname).toBe('/');
  });

  it("serves the root site's protected-resource document without scopes", async () => {
    const response = await testFetch(`${platform.urls.base}/.well-known/oauth-protected-resource`, {
      headers: { authorization: 'Bearer whatever', cookie: 'a=b' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
    const document = (await response.json()) as Record<string, unknown>;
    expect(document).toEqual({
      resource: platform.urls.base,
      authorization_servers: [authUrl],
      resource_name: 'Campaign platform (public site)',
      resource_documentation: `${platform.urls.base}/llms.txt`,
    });
    expect('scopes_supported' in document).toBe(false);
  });
});

describe('dynamic client registration', () => {
  it('registers a public client from only client_name and redirect_uris', async () => {
    const { status, json } = await registerClient(authUrl, {
      client_name: 'Minimal',
      redirect_uris: ['http://localhost:8765/cb'],
    });
    expect(status).toBe(201);
    expect(json).toMatchObject({
      client_name: 'Minimal',
      redirect_uris: ['http://localhost:8765/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'native',
    });
    expect(json.client_id).toMatch(/^mcp_[0-9a-f]{32}$/);
    expect(json.client_secret).toBeUndefined();
  });

  it.each([
    ['missing redirect_uris', { client_name: 'x' }],
    ['an empty list', { client_name: 'x', redirect_uris: [] }],
    ['a relative URI', { client_name: 'x', redirect_uris: ['/callback'] }],
    ['a javascript: URI', { client_name: 'x', redirect_uris: ['javascript:alert(1)'] }],
  ])('refuses %s with 400 invalid_redirect_uri', async (_label, body) => {
    const { status, json } = await registerClient(authUrl, body);
    expect(status).toBe(400);
    expect(json.error).toBe('invalid_redirect_uri');
  });

  it.each([
    ['http://evil.example/cb', 'plain http only for the loopback addresses'],
    ['http://10.0.0.1/cb', 'plain http only for the loopback addresses'],
    ['http://localhost.evil.example/cb', 'plain http only for the loopback addresses'],
    ['https://a@evil.example/cb', 'must not contain userinfo'],
    ['myapp:/cb', 'reverse domain name'],
    // (the whole table, fragments and local schemes included, is test/unit/redirect-uris.test.ts; registrations
    // are rate-limited per address, so this file registers sparingly)
  ])('refuses the redirect URI %s with 400 invalid_redirect_uri and says why', async (uri, why) => {
    const { status, json } = await registerClient(authUrl, {
      client_name: 'x',
      redirect_uris: ['http://127.0.0.1/cb', uri],
    });
    expect(status).toBe(400);
    expect(json).toEqual({ error: 'invalid_redirect_uri', error_description: expect.stringContaining(why) });
  });

  it('registers a reverse-domain private-use redirect as a native app and delivers the code there', async () => {
    const { status, json } = await registerClient(authUrl, {
      client_name: 'Desktop app',
      redirect_uris: ['com.example.desktop:/oauth/callback'],
    });
    expect(status).toBe(201);
    expect(json.application_type).toBe('native');
    const { challenge } = pkce();
    const { redirect } = await authorizeOverHttp({
      authUrl,
      clientId: json.client_id,
      redirectUri: 'com.example.desktop:/oauth/callback',
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(redirect!.protocol).toBe('com.example.desktop:');
    expect(redirect!.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('delivers no code to a client stored before the rule whose redirect it refuses', async () => {
    // As registered before the rule existed: a plain-http redirect to someone else's host.
    const clientId = `mcp_${randomBytes(16).toString('hex')}`;
    await new (createAdapterFactory(platform.container.orm))('Client').upsert(clientId, {
      client_id: clientId,
      client_name: 'Registered before the rule',
      redirect_uris: ['http://evil.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
    });
    const { challenge } = pkce();
    const { redirect, page } = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: 'http://evil.example/cb',
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(redirect).toBeNull();
    expect(page!.status).toBe(400);
    const html = await page!.text();
    expect(html).toContain('invalid_redirect_uri');
    expect(html).not.toContain('Connect Registered before the rule');
  });

  it('applies the same rule to client ID metadata documents', () => {
    const Client = platform.container.oauth.provider.Client as unknown as new (
      metadata: Record<string, unknown>,
      ctx: undefined,
      options: { cimd: boolean },
    ) => unknown;
    const clientId = 'https://tools.example.com/oauth/client.json';
    const document = (redirectUri: string) => ({
      client_id: clientId,
      client_name: 'Metadata document client',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    });
    // The provider builds a metadata-document client exactly like this once it has fetched the document.
    expect(() => new Client(document('http://evil.example/cb'), undefined, { cimd: true })).toThrow(
      expect.objectContaining({ error: 'invalid_redirect_uri' }),
    );
    expect(() => new Client(document('http://127.0.0.1:9999/cb'), undefined, { cimd: true })).not.toThrow();
  });
});

describe('the code flow', () => {
  it('issues tokens bound to the chosen workspace, refreshes with rotation, and revokes', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('mcp:write') });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const first = await callWithBearer(platform.urls.mcp, tokens.access_token);
    expect(first.status).toBe(200);
    expect(first.body.result.structuredContent.organization).toMatchObject({ id: tenant.workspaceId, role: 'owner' });

    const refreshed = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    expect(refreshed.json.refresh_token).not.toBe(tokens.refresh_token);
    expect((await callWithBearer(platform.urls.mcp, refreshed.json.access_token)).status).toBe(200);

    expect(
      await revoke(authUrl, {
        token: refreshed.json.access_token,
        token_type_hint: 'access_token',
        client_id: clientId,
      }),
    ).toBe(200);
    const afterRevoke = await callWithBearer(platform.urls.mcp, refreshed.json.access_token);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // Idempotent: revoking again, or an unknown token, is still 200.
    expect(
      await revoke(authUrl, {
        token: refreshed.json.access_token,
        token_type_hint: 'access_token',
        client_id: clientId,
      }),
    ).toBe(200);
    expect(await revoke(authUrl, { token: 'never-issued', client_id: clientId })).toBe(200);
  });

  it('includes the RFC 9207 iss parameter in the authorization response', async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const { redirect } = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: REDIRECT,
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(redirect!.searchParams.get('iss')).toBe(authUrl);
    expect(redirect!.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('issues no refresh token to a client registered without the refresh_token grant, even for offline_access', async () => {
    const clientId = await newClient({ grant_types: ['authorization_code'] });
    const { tokens } = await issueTokens(clientId, 'mcp:read mcp:write offline_access');
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('issues a rotating refresh token to a client registered for the grant, without offline_access', async () => {
    // SEP-2207: resource servers do not list offline_access, so stock clients never ask for it.
    const { tokens } = await issueTokens(await sharedClient(), 'mcp:read mcp:write');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: await sharedClient(),
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(tokens.refresh_token);
    expect((await callWithBearer(platform.urls.mcp, refreshed.json.access_token)).status).toBe(200);
  });

  it('caps a read-only grant at the viewer role', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId, 'mcp:read');
    const result = await callWithBearer(platform.urls.mcp, tokens.access_token);
    expect(result.body.result.structuredContent.organization.role).toBe('viewer');
  });
});

describe('scopes', () => {
  it('completes a flow for every scope the metadata advertises, one at a time', async () => {
    const clientId = await sharedClient();
    const metadata = (await (await testFetch(`${authUrl}/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported: string[];
    };
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['openid', 'mcp:read', 'mcp:write']));
    for (const scope of metadata.scopes_supported) {
      const { verifier, challenge } = pkce();
      const { redirect, page } = await authorizeOverHttp({
        authUrl,
        clientId,
        redirectUri: REDIRECT,
        scope,
        codeChallenge: challenge,
        email: tenant.email,
        password: PASSWORD,
        workspaceId: tenant.workspaceId,
        resource: platform.urls.mcp,
      });
      // A page here (the consent page again, or an error) means the flow never reached the client.
      expect({ scope, page: page ? page.status : null, code: redirect?.searchParams.get('code') }).toEqual({
        scope,
        page: null,
        code: expect.any(String),
      });
      const tokens = await tokenRequest(authUrl, {
        grant_type: 'authorization_code',
        code: redirect!.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
        resource: platform.urls.mcp,
      });
      expect({ scope, status: tokens.status }).toEqual({ scope, status: 200 });
      expect((await callWithBearer(platform.urls.mcp, tokens.json.access_token)).status).toBe(200);
      if (scope === 'openid') expect(tokens.json.id_token).toEqual(expect.any(String));
    }
  });

  it.each([['profile'], ['mcp:read email'], ['admin'], ['mcp:admin offline_access']])(
    'refuses the scope "%s" with invalid_scope at the redirect URI',
    async (scope) => {
      const { redirect } = await authorizeOverHttp({
        authUrl,
        clientId: await sharedClient(),
        redirectUri: REDIRECT,
        scope,
        codeChallenge: pkce().challenge,
        email: tenant.email,
        password: PASSWORD,
        workspaceId: tenant.workspaceId,
      });
      expect(redirect!.origin + redirect!.pathname).toBe(REDIRECT);
      expect(redirect!.searchParams.get('error')).toBe('invalid_scope');
      expect(redirect!.searchParams.get('error_description')).toMatch(/^unsupported scope ".+"; this authorization/);
      expect(redirect!.searchParams.get('code')).toBeNull();
    },
  );
});

describe('tokens at rest', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await sharedClient();
  });

  async function wholeTable(): Promise<string> {
    const rows = await platform.container.orm.em
      .getConnection()
      .execute<{ row: string }[]>('select row_to_json(p)::text as row from oidc_payloads p', [], 'all');
    return rows.map((r) => r.row).join('\n');
  }

  it('stores no token, code or session cookie that a database reader could present', async () => {
    const { verifier, challenge } = pkce();
    const { redirect, browser } = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: REDIRECT,
      scope: 'mcp:read mcp:write offline_access',
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
      resource: platform.urls.mcp,
    });
    const code = redirect!.searchParams.get('code')!;
    const issued = await tokenRequest(authUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: platform.urls.mcp,
    });
    const refreshed = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: issued.json.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const cookies = await browser.jar.getCookies(authUrl);
    const sessionCookie = cookies.find((cookie) => cookie.key === '_session')?.value;
    expect(sessionCookie).toEqual(expect.any(String));
    const secrets = {
      code,
      accessToken: issued.json.access_token as string,
      refreshToken: issued.json.refresh_token as string,
      refreshedAccessToken: refreshed.json.access_token as string,
      rotatedRefreshToken: refreshed.json.refresh_token as string,
      sessionCookie: sessionCookie!,
    };
    const table = await wholeTable();
    // No value that could be presented as a credential...
    for (const [name, value] of Object.entries(secrets)) {
      expect({ name, found: table.includes(value) }).toEqual({ name, found: false });
    }
    // ...though the rows are there, keyed by the hashes.
    expect(table).toContain(storedOidcId(secrets.refreshedAccessToken));
    expect(table).toContain(storedOidcId(secrets.sessionCookie));
    // And everything still works from the hashes.
    expect((await callWithBearer(platform.urls.mcp, secrets.refreshedAccessToken)).status).toBe(200);
  });

  it('migrates rows stored with plain ids so their tokens keep working', async () => {
    const { tokens } = await issueTokens(clientId);
    const connection = platform.container.orm.em.getConnection();
    // Put the access token's row back into the form the previous code wrote: id = token, jti in the payload.
    await connection.execute(
      `update oidc_payloads set id = ?, payload = payload || jsonb_build_object('jti', ?::text)
       where model = 'AccessToken' and id = ?`,
      [tokens.access_token, tokens.access_token, storedOidcId(tokens.access_token)],
    );
    expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(401);
    const migration = new Migration20261125100000_hashed_oidc_ids(
      platform.container.orm.em.getDriver() as never,
      platform.container.orm.config as never,
    );
    await migration.up();
    const before = await wholeTable();
    for (const query of migration.getQueries()) await connection.execute(query as string);
    expect(await wholeTable()).not.toContain(tokens.access_token);
    expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(200);
    // Rows already hashed are left as they were (the client's among them): running it again is harmless.
    expect(before).toContain(storedOidcId(clientId));
    expect(await wholeTable()).toContain(storedOidcId(clientId));
    expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(200);
  });
});

describe('framing', () => {
  function expectNoFraming(response: Response, what: string) {
    expect({ what, status: response.status, xfo: response.headers.get('x-frame-options') }).toEqual({
      what,
      status: response.status,
      xfo: 'DENY',
    });
    expect({ what, csp: response.headers.get('content-security-policy') }).toEqual({
      what,
      csp: expect.stringMatching(/(^|;)\s*frame-ancestors 'none'/),
    });
  }

  it('forbids framing of the sign-in and consent pages and of the dashboard, signed in or not', async () => {
    const clientId = await sharedClient();
    const browser = new Browserless();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'mcp:read',
      state: 'framing',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const signIn = await browser.follow(`${authUrl}/oauth/authorize?${params}`, authUrl);
    expect(signIn.url).toContain('/interaction/');
    const signInHtml = await signIn.response.text();
    expect(signInHtml).toContain('/login"');
    expectNoFraming(signIn.response, 'interaction sign-in page');
    const consent = await browser.follow(`${signIn.url}/login`, authUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: /name="_csrf" value="([^"]+)"/.exec(signInHtml)![1]!,
        email: tenant.email,
        password: PASSWORD,
      }).toString(),
    });
    expect(await consent.response.text()).toContain('/confirm"');
    expectNoFraming(consent.response, 'consent page');
    // oidc-provider's own error page (an unknown client) too.
    expectNoFraming(await testFetch(`${authUrl}/oauth/authorize?client_id=nobody`), 'authorization error page');

    expectNoFraming(await testFetch(`${platform.urls.platform}/signin`), 'dashboard sign-in page');
    const em = acrossWorkspaces(platform.container.orm.em);
    const user = await em.findOneOrFail(User, { id: tenant.userId });
    const { token } = await platform.container.services.sessions.create(em, user, { userAgent: 'framing-test' });
    const signedIn = await testFetch(`${platform.urls.platform}/w/${tenant.workspaceId}`, {
      headers: { cookie: `cp_session=${token}` },
    });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).toContain('OAuth workspace');
    expectNoFraming(signedIn, 'signed-in dashboard page');
  });
});

describe('security rules', () => {
  it('refuses PKCE plain', async () => {
    const clientId = await newClient();
    const { redirect } = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: REDIRECT,
      codeChallenge: 'a'.repeat(43),
      codeChallengeMethod: 'plain',
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(redirect!.searchParams.get('error')).toBe('invalid_request');
    expect(redirect!.searchParams.get('error_description')).toMatch(/code_challenge_method/);
  });

  it('refuses an authorization request without a code challenge', async () => {
    const clientId = await newClient();
    const { redirect } = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: REDIRECT,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(redirect!.searchParams.get('error')).toBe('invalid_request');
    expect(redirect!.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses a token request without the verifier, or with the wrong one, as invalid_grant', async () => {
    const clientId = await newClient();
    for (const verifier of [undefined, randomBytes(32).toString('base64url')]) {
      const { challenge } = pkce();
      const { redirect } = await authorizeOverHttp({
        authUrl,
        clientId,
        redirectUri: REDIRECT,
        codeChallenge: challenge,
        email: tenant.email,
        password: PASSWORD,
        workspaceId: tenant.workspaceId,
      });
      const response = await tokenRequest(authUrl, {
        grant_type: 'authorization_code',
        code: redirect!.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: clientId,
        ...(verifier ? { code_verifier: verifier } : {}),
      });
      expect(response.status).toBe(400);
      expect(response.json.error).toBe('invalid_grant');
    }
  });

  it('refuses a redirect URI that was not registered, and does not redirect to it', async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const { redirect, page } = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: 'http://evil.example/callback',
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(redirect).toBeNull();
    expect(page!.status).toBe(400);
    expect(await page!.text()).toContain('invalid_redirect_uri');
  });

  it('matches loopback redirects of native clients on any port, but nothing else loosely', async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const otherPort = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: 'http://127.0.0.1:50999/callback',
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(otherPort.redirect!.origin).toBe('http://127.0.0.1:50999');
    expect(otherPort.redirect!.searchParams.get('code')).toEqual(expect.any(String));
    const otherPath = await authorizeOverHttp({
      authUrl,
      clientId,
      redirectUri: 'http://127.0.0.1:45123/other',
      codeChallenge: challenge,
      email: tenant.email,
      password: PASSWORD,
      workspaceId: tenant.workspaceId,
    });
    expect(otherPath.redirect).toBeNull();
    expect(otherPath.page!.status).toBe(400);
  });

  it('refuses a reused code and revokes what the first use issued', async () => {
    const clientId = await newClient();
    const { tokens, code, verifier } = await issueTokens(clientId);
    expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(200);
    const again = await tokenRequest(authUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
    expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(401);
    const refresh = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('revokes the whole grant when a rotated refresh token is used again', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId);
    const rotated = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const reuse = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.json.error).toBe('invalid_grant');
    const successor = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: rotated.json.refresh_token,
      client_id: clientId,
    });
    expect(successor.json.error).toBe('invalid_grant');
    expect((await callWithBearer(platform.urls.mcp, rotated.json.access_token)).status).toBe(401);
  });

  it('refuses a token issued for another resource', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId);
    const provider = platform.container.oauth.provider;
    const original = await provider.AccessToken.find(tokens.access_token);
    const foreign = new provider.AccessToken({
      accountId: original!.accountId,
      clientId,
      grantId: original!.grantId,
      scope: 'mcp:read mcp:write',
      extra: original!.extra,
      resourceServer: {
        audience: 'http://other.localhost/api',
        scope: 'mcp:read mcp:write',
        accessTokenFormat: 'opaque',
      } as never,
    } as never);
    const value = await foreign.save();
    const response = await callWithBearer(platform.urls.mcp, value);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="The access token was issued for another resource", resource_metadata=/,
    );
  });

  it('refuses an expired token', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId);
    const provider = platform.container.oauth.provider;
    const token = await provider.AccessToken.find(tokens.access_token);
    await platform.container.orm.em
      .getConnection()
      .execute(
        `update oidc_payloads set payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::int - 60)) where model = 'AccessToken' and id = ?`,
        [storedOidcId(token!.jti)],
      );
    const response = await callWithBearer(platform.urls.mcp, tokens.access_token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(response.body.error.message).toBe('The access token is invalid, expired or revoked');
  });

  it('refuses a token in the query string', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId);
    const response = await testFetch(`${platform.urls.mcp}?access_token=${tokens.access_token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as any).error.data.code).toBe('token_in_query');
  });

  it('refuses a browser Origin that is not allowed with 403, before authentication', async () => {
    const response = await callWithBearer(platform.urls.mcp, 'anything', { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect(response.body.error.data.code).toBe('forbidden_origin');
    const own = await testFetch(platform.urls.mcp, {
      method: 'POST',
      headers: {
        origin: new URL(platform.urls.platform).origin,
        'x-api-key': tenant.apiKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(own.status).toBe(200);
  });

  it('stops a revoked connected app at once', async () => {
    const clientId = await newClient();
    const { tokens } = await issueTokens(clientId);
    const em = acrossWorkspaces(platform.container.orm.em);
    const grantId = (await platform.container.oauth.provider.AccessToken.find(tokens.access_token))!.grantId!;
    await platform.container.services.connectedApps.revoke(em, tenant.workspaceId, grantId);
    expect((await callWithBearer(platform.urls.mcp, tokens.access_token)).status).toBe(401);
    const refresh = await tokenRequest(authUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.json.error).toBe('invalid_grant');
  });
});
