/**
 * The tool server's HTTP edge: the 401 challenge and the metadata documents it points to, API key happy and
 * bad paths (each a clear error that changes nothing), remembered key lookups forgotten when a key or its
 * creator's membership changes, query-string tokens, two credentials at once, methods other than POST, body
 * limits and JSON-RPC batches (refused where the protocol version has none, counted per message where it has).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createContainer } from '../../src/container.ts';
import { ApiKey } from '../../src/domain/workspaces/api-key.entity.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { CreditLedgerEntry } from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { AuditEvent } from '../../src/domain/audit/audit-event.entity.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { authorizationCodeTokens, registerClient } from '../support/oauth-http.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { eventually, pollUntil } from '../support/poll.ts';

let platform: TestPlatform;
let tenant: Tenant;

const callHealth = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'get_platform_info', arguments: { topic: 'health' } },
};

async function post(headers: Record<string, string>, body: unknown = callHealth, query = '', url = platform.urls.mcp) {
  const response = await testFetch(`${url}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

/** Everything a failed authentication must leave untouched. */
async function snapshotState() {
  const em = acrossWorkspaces(platform.container.orm.em);
  const keys = await em.find(ApiKey, {}, { orderBy: { id: 'asc' } });
  return {
    keys: keys.map((k) => ({
      id: k.id,
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      disabledAt: k.disabledAt?.toISOString() ?? null,
    })),
    jobs: await em.count(Job, {}),
    ledger: await em.count(CreditLedgerEntry, {}),
  };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'mcpauth' });
  tenant = await createTenant(platform.container, { credits: 10, password: PASSWORD });
});

const PASSWORD = 'correct horse battery staple';

/** A real OAuth access token of `owner`'s workspace, through the authorization-code flow. */
async function accessTokenOf(owner: Tenant): Promise<string> {
  const redirectUri = 'http://127.0.0.1:40000/cb';
  const { json } = await registerClient(platform.urls.auth, { client_name: 'edge', redirect_uris: [redirectUri] });
  const tokens = await authorizationCodeTokens({
    authUrl: platform.urls.auth,
    clientId: json.client_id,
    redirectUri,
    email: owner.email,
    password: PASSWORD,
    workspaceId: owner.workspaceId,
  });
  return tokens.json.access_token as string;
}

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

describe('unauthenticated requests', () => {
  it('get 401 with the resource-metadata challenge and no error code', async () => {
    const response = await post({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${platform.urls.platform}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'Authentication required: send Authorization: Bearer <access token> (OAuth) or x-api-key: <workspace API key>',
        data: { code: 'missing_credentials' },
      },
    });
  });

  it.each([
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-protected-resource/api/mcp',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/mcp?profile=abc',
  ])('serve the protected-resource metadata at %s', async (path) => {
    const response = await testFetch(`${platform.urls.platform}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      resource: platform.urls.mcp,
      authorization_servers: [platform.urls.auth],
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Campaign platform MCP server',
      resource_documentation: `${platform.urls.base}/llms.txt`,
    });
  });

  it('answer GET and DELETE with 405 (no SSE stream is offered)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await testFetch(platform.urls.mcp, { method, headers: { 'x-api-key': tenant.apiKey } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('refuse a host the platform does not serve', async () => {
    const response = await testFetch(`http://unknown.localhost:${platform.port}/api/mcp`, { method: 'POST' });
    expect(response.status).toBe(404);
  });
});

describe('API keys', () => {
  it('authenticate a valid key and bind the request to its workspace', async () => {
    const response = await post(
      { 'x-api-key': tenant.apiKey },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_platform_info', arguments: { topic: 'organization' } },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body.result.structuredContent.organization).toMatchObject({
      id: tenant.workspaceId,
      name: tenant.workspaceName,
      role: 'owner',
      credits: { available: 10, held: 0, spent: 0 },
    });
  });

  it('record when a key was last used (written in the background, off the request path)', async () => {
    const lastUsedAt = await eventually(
      async () => (await platform.container.orm.em.fork().findOneOrFail(ApiKey, { id: tenant.apiKeyId })).lastUsedAt,
      'the key to record when it was last used',
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(lastUsedAt).toBeInstanceOf(Date);
  });

  const badKeys: [string, () => Record<string, string>, string, string][] = [
    ['malformed', () => ({ 'x-api-key': 'not-a-key' }), 'malformed_api_key', 'Malformed API key'],
    ['unknown', () => ({ 'x-api-key': `cpk_${'A'.repeat(43)}` }), 'unknown_api_key', 'Unknown API key'],
    ['a bearer token of the wrong shape', () => ({ authorization: 'Basic abc' }), 'invalid_token', 'Bearer'],
  ];

  it.each(badKeys)(
    'refuse a %s credential with a clear error and change nothing',
    async (_label, headers, reason, text) => {
      const before = await snapshotState();
      const response = await post(headers());
      expect(response.status).toBe(401);
      expect(response.body.error.data.code).toBe(reason);
      expect(response.body.error.message).toContain(text);
      expect(response.headers.get('www-authenticate')).toMatch(
        new RegExp(
          `^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${platform.urls.platform.replace(/[.]/g, '\\.')}/\\.well-known/oauth-protected-resource/mcp"$`,
        ),
      );
      expect(await snapshotState()).toEqual(before);
    },
  );

  it('refuse a disabled key, naming when it was disabled, and change nothing', async () => {
    const other = await createTenant(platform.container);
    await platform.container.services.workspaces.disableApiKey(
      acrossWorkspaces(platform.container.orm.em),
      other.workspaceId,
      other.apiKeyId,
    );
    const before = await snapshotState();
    const response = await post({ 'x-api-key': other.apiKey });
    expect(response.status).toBe(401);
    expect(response.body.error.data.code).toBe('disabled_api_key');
    expect(response.body.error.message).toMatch(/^This API key was disabled on \d{4}-\d{2}-\d{2}T/);
    expect(await snapshotState()).toEqual(before);
  });

  it('refuse a key at once on the instance that disabled it, even right after using it', async () => {
    const other = await createTenant(platform.container);
    expect((await post({ 'x-api-key': other.apiKey })).status).toBe(200); // its lookup is now remembered
    await platform.container.services.workspaces.disableApiKey(
      acrossWorkspaces(platform.container.orm.em),
      other.workspaceId,
      other.apiKeyId,
    );
    const response = await post({ 'x-api-key': other.apiKey });
    expect(response.status).toBe(401);
    expect(response.body.error.data.code).toBe('disabled_api_key');
  });

  it('apply a member removal to their keys at once on the instance that removed them', async () => {
    const other = await createTenant(platform.container);
    const em = acrossWorkspaces(platform.container.orm.em);
    const editor = await platform.container.services.workspaces.createUser(em, {
      email: `editor-${Date.now()}@example.test`,
      name: 'Editor',
    });
    await platform.container.services.workspaces.setMember(em, other.workspaceId, {
      email: editor.email,
      role: 'editor',
    });
    const key = await platform.container.services.workspaces.createApiKey(em, other.workspaceId, {
      name: 'editor key',
      role: 'editor',
      createdByUserId: editor.id,
    });
    expect((await post({ 'x-api-key': key.secret })).status).toBe(200);
    await platform.container.services.workspaces.removeMember(em, other.workspaceId, editor.id);
    const response = await post({ 'x-api-key': key.secret });
    expect(response.status).toBe(401);
    expect(response.body.error.data.code).toBe('api_key_creator_removed');
  });

  it('apply a change made elsewhere within API_KEY_CACHE_TTL_MS on another instance', async () => {
    // A second API instance on the same database remembers its own lookups, for 500 ms here.
    const second = await createContainer(
      { ...platform.config, apiKeyCacheTtlMs: 500 },
      { log: createLogger({ level: 'silent', name: 'second' }), migrate: false },
    );
    const { listener, close } = createHttpApp(second);
    const server = http.createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const secondMcp = `http://app.localhost:${(server.address() as AddressInfo).port}/api/mcp`;
    try {
      const other = await createTenant(platform.container);
      const viaSecond = () => post({ 'x-api-key': other.apiKey }, callHealth, '', secondMcp);
      expect((await viaSecond()).status).toBe(200);
      await platform.container.services.workspaces.disableApiKey(
        acrossWorkspaces(platform.container.orm.em),
        other.workspaceId,
        other.apiKeyId,
      );
      // Refused once the second instance's lookup has expired. The deadline (ten times that instance's 500 ms)
      // only keeps a lookup that is never forgotten from passing; how soon it goes is not timed here.
      const { status } = await pollUntil(
        () => viaSecond(),
        (response) => response.status !== 200,
        { timeoutMs: 5_000, intervalMs: 50, timeoutMessage: 'the second instance kept accepting the disabled key' },
      );
      expect(status).toBe(401);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
      await second.close();
    }
  });

  it('refuse credentials in the query string even alongside a valid key', async () => {
    const response = await post({ 'x-api-key': tenant.apiKey }, callHealth, `?access_token=${tenant.apiKey}`);
    expect(response.status).toBe(401);
    expect(response.body.error.data.code).toBe('token_in_query');
  });

  it('stop working for a key whose creator left the workspace', async () => {
    const other = await createTenant(platform.container);
    const em = acrossWorkspaces(platform.container.orm.em);
    const { Membership } = await import('../../src/domain/workspaces/membership.entity.ts');
    await em.nativeDelete(Membership, { workspace: other.workspaceId, user: other.userId });
    const response = await post({ 'x-api-key': other.apiKey });
    expect(response.status).toBe(401);
    expect(response.body.error.data.code).toBe('api_key_creator_removed');
  });
});

describe('two credentials in one request', () => {
  it('are refused with 400 invalid_request whichever is valid, and change nothing', async () => {
    const other = await createTenant(platform.container, { password: PASSWORD });
    const token = await accessTokenOf(tenant);
    // Alone, each credential works and names its own workspace.
    const viaToken = await post({ authorization: `Bearer ${token}` });
    expect(viaToken.body.result.structuredContent.health.status).toBe('ok');
    const before = await snapshotState();
    const cases: Record<string, string>[] = [
      { authorization: `Bearer ${token}`, 'x-api-key': other.apiKey }, // A's token, B's key
      { authorization: `Bearer ${token}`, 'x-api-key': 'cpk_garbage' }, // a valid token beside a garbage key
      { authorization: 'Bearer not-a-token', 'x-api-key': tenant.apiKey }, // a valid key beside a garbage token
    ];
    for (const headers of cases) {
      const response = await post(headers);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(
        'Send exactly one credential: either Authorization: Bearer <access token> or x-api-key, not both',
      );
      expect(response.body.error.data.code).toBe('conflicting_credentials');
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer error="invalid_request", error_description="Send exactly one credential/,
      );
    }
    expect(await snapshotState()).toEqual(before);
  });
});

describe('request bodies', () => {
  it('answer a body over 1 MiB with 413 and a message that names the limit', async () => {
    const huge = { ...callHealth, params: { ...callHealth.params, _meta: { pad: 'x'.repeat(1024 * 1024) } } };
    const response = await post({ 'x-api-key': tenant.apiKey }, huge);
    expect(response.status).toBe(413);
    expect(response.body.error).toEqual({
      code: -32600,
      message: 'Request body too large: the limit is 1048576 bytes (1 MiB) per request',
      data: { code: 'payload_too_large', limitBytes: 1048576 },
    });
  });

  it('refuse a non-JSON body with a JSON-RPC parse error', async () => {
    const response = await testFetch(platform.urls.mcp, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32700);
  });

  it('refuse a body that is not JSON at all with 415', async () => {
    const response = await testFetch(platform.urls.mcp, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': tenant.apiKey },
      body: 'hello',
    });
    expect(response.status).toBe(415);
  });

  it('serve a plain curl-style request that accepts only JSON', async () => {
    const response = await testFetch(platform.urls.mcp, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: '*/*', 'x-api-key': tenant.apiKey },
      body: JSON.stringify(callHealth),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.health).toMatchObject({
      status: 'ok',
      database: { status: 'up' },
      temporal: { status: 'up', namespace: 'default' },
    });
  });
});

describe('JSON-RPC batches', () => {
  const createCampaign = (id: number, name: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'manage_campaigns', arguments: { action: 'create', name } },
  });

  async function campaignAudits(workspaceId: string): Promise<number> {
    return acrossWorkspaces(platform.container.orm.em).count(AuditEvent, {
      workspaceId,
      action: 'mcp.manage_campaigns.create',
    });
  }

  it('are refused whole for protocol versions without batching, before any message runs', async () => {
    const owner = await createTenant(platform.container);
    for (const version of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      const batch = Array.from({ length: 100 }, (_, i) => createCampaign(i + 1, `Batch ${version} ${i}`));
      const response = await post({ 'x-api-key': owner.apiKey, 'mcp-protocol-version': version }, batch);
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: -32600,
        message: `Invalid request: JSON-RPC batching is not supported in MCP protocol version ${version} (it was removed in 2025-06-18); send one JSON-RPC message per request`,
        data: { code: 'batch_not_supported' },
      });
    }
    expect(await campaignAudits(owner.workspaceId)).toBe(0);
  });

  it('count every message against the rate limit where the version allows them, and refuse a batch that does not fit', async () => {
    const owner = await createTenant(platform.container);
    const headers = { 'x-api-key': owner.apiKey, 'mcp-protocol-version': '2025-03-26' };
    const batch = (size: number, from: number) =>
      Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'tools/list' }));

    const first = await post(headers, batch(100, 1));
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(100);
    expect(first.headers.get('ratelimit')).toMatch(/^"tool-server";r=20;t=\d+$/);

    // 100 counted: a second batch of 100 cannot fit and runs none of its messages.
    const second = await post(headers, [createCampaign(1, 'Too many'), ...batch(99, 2)]);
    expect(second.status).toBe(429);
    expect(second.body.error.data.code).toBe('rate_limited');
    expect(await campaignAudits(owner.workspaceId)).toBe(0);

    // Single requests still pass up to the limit: the refused batch counted as one request, so 19 more fit.
    const singles = [];
    for (let i = 0; i < 20; i += 1) singles.push((await post({ 'x-api-key': owner.apiKey })).status);
    expect(singles.filter((status) => status === 200)).toHaveLength(19);
    expect(singles.at(-1)).toBe(429);
  });

  it('refuse an empty batch and one larger than the limit allows in a minute', async () => {
    const headers = { 'x-api-key': tenant.apiKey, 'mcp-protocol-version': '2025-03-26' };
    const empty = await post(headers, []);
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: -32600, message: 'Invalid request: an empty JSON-RPC batch' });
    const tooBig = await post(
      headers,
      Array.from({ length: 121 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })),
    );
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.data).toEqual({ code: 'batch_too_large', limit: 120 });
  });
});
