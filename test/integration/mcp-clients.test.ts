/**
 * `get_platform_info` through real MCP clients over HTTP, in both protocol eras: the SDK v2 client pinned to
 * 2026-07-28 (`server/discover`, per-request envelopes), the v2 client in its default 2025 handshake, and
 * the v1 SDK client (`@modelcontextprotocol/sdk` with its Streamable HTTP transport).
 */
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV1, connectV2, type ConnectedClient } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let tenant: Tenant;
let viewerKey: string;
let adminKey: string;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'mcpclients' });
  tenant = await createTenant(platform.container, { credits: 25, name: 'Acme Coffee' });
  viewerKey = await createKey(platform.container, tenant, 'viewer');
  adminKey = await createKey(platform.container, tenant, 'admin');
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

type Connect = (apiKey: string, url?: string) => Promise<ConnectedClient>;
const clients: [string, Connect, 'modern' | 'legacy'][] = [
  [
    'SDK v2, 2026-07-28',
    (apiKey, url = platform.urls.mcp) => connectV2(url, { 'x-api-key': apiKey }, 'modern'),
    'modern',
  ],
  [
    'SDK v2, 2025 handshake',
    (apiKey, url = platform.urls.mcp) => connectV2(url, { 'x-api-key': apiKey }, 'legacy'),
    'legacy',
  ],
  ['SDK v1 (2025-era client)', (apiKey, url = platform.urls.mcp) => connectV1(url, { 'x-api-key': apiKey }), 'legacy'],
];

describe.each(clients)('%s', (_label, connect, era) => {
  let client: ConnectedClient;
  beforeAll(async () => {
    client = await connect(tenant.apiKey);
  });
  afterAll(async () => {
    await client.close();
  });

  it('negotiates the expected protocol era', () => {
    expect(client.era).toBe(era);
  });

  it('advertises the MCP Apps extension where clients of its era look (and tasks where they are negotiated so)', () => {
    const capabilities = client.serverCapabilities();
    expect(capabilities?.extensions?.['io.modelcontextprotocol/ui']).toEqual({
      mimeTypes: ['text/html;profile=mcp-app'],
    });
    // The tasks extension exists in 2026-07-28 only; 2025 clients negotiate tasks through `capabilities.tasks`.
    if (era === 'modern') expect(capabilities?.extensions?.['io.modelcontextprotocol/tasks']).toEqual({});
    else {
      expect(capabilities?.extensions).not.toHaveProperty(['io.modelcontextprotocol/tasks']);
      expect(capabilities?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    }
  });

  it('does not advertise the MCP Apps extension to a profile without the widget', async () => {
    // An unknown call code selects the discovery profile (get_platform_info only): no widget there.
    const discovery = await connect(tenant.apiKey, `${platform.urls.mcp}?profile=not-a-code`);
    try {
      expect((await discovery.listTools()).map((t) => t.name)).toEqual(['get_platform_info']);
      expect(discovery.serverCapabilities()?.extensions ?? {}).not.toHaveProperty(['io.modelcontextprotocol/ui']);
    } finally {
      await discovery.close();
    }
  });

  it('lists get_platform_info as a read-only tool with explicit annotations and schemas', async () => {
    const tools = await client.listTools();
    const tool = tools.find((t) => t.name === 'get_platform_info');
    expect(tool).toBeDefined();
    expect(tool!.annotations).toEqual({
      title: 'Platform info',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tool!.inputSchema).toMatchObject({
      type: 'object',
      properties: { topic: { enum: ['health', 'organization', 'tool_profiles'] } },
      required: ['topic'],
      additionalProperties: false,
    });
  });

  it('reports the database and Temporal as up', async () => {
    const result = await client.callTool('get_platform_info', { topic: 'health' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      topic: 'health',
      health: { status: 'ok', database: { status: 'up' }, temporal: { status: 'up' } },
    });
    expect(result.content[0]?.text).toMatch(/^Platform ok: database up, Temporal up/);
  });

  it("names the key's workspace, role and credits", async () => {
    const result = await client.callTool('get_platform_info', { topic: 'organization' });
    expect(result.structuredContent).toMatchObject({
      organization: { id: tenant.workspaceId, name: 'Acme Coffee', role: 'owner', credits: { available: 25 } },
    });
  });

  it('lists the tool profiles', async () => {
    const result = await client.callTool('get_platform_info', { topic: 'tool_profiles' });
    const profiles = (result.structuredContent as { profiles: { current: string; available: { name: string }[] } })
      .profiles;
    expect(profiles.current).toBe('external_default');
    expect(profiles.available.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'external_default',
        'campaign_ops',
        'analytics_read',
        'video_ops',
        'ai_studio_ops',
        'autonomous_ops',
      ]),
    );
  });

  it('shows software versions in health to owners and admins only; status and latency to everyone', async () => {
    const health = async (apiKey: string) => {
      const other = await connect(apiKey);
      try {
        const result = await other.callTool('get_platform_info', { topic: 'health' });
        expect(result.isError).toBeFalsy();
        return { text: result.content[0]?.text ?? '', health: (result.structuredContent as { health: Health }).health };
      } finally {
        await other.close();
      }
    };
    type Health = Record<string, unknown> & { database: Record<string, unknown>; temporal: Record<string, unknown> };
    const nodeVersion = process.version;

    const viewer = await health(viewerKey);
    expect(viewer.health).toMatchObject({
      status: 'ok',
      database: { status: 'up', latencyMs: expect.any(Number) },
      temporal: { status: 'up', latencyMs: expect.any(Number) },
    });
    expect(viewer.health).not.toHaveProperty('nodeVersion');
    expect(viewer.health.database).not.toHaveProperty('version');
    expect(viewer.health.temporal).not.toHaveProperty('version');
    expect(JSON.stringify(viewer)).not.toContain(nodeVersion);

    for (const key of [adminKey, tenant.apiKey]) {
      const privileged = await health(key);
      expect(privileged.health).toMatchObject({
        nodeVersion,
        database: { status: 'up', version: expect.stringMatching(/^\d+/) },
        temporal: { status: 'up', version: expect.stringMatching(/^\d+/) },
      });
    }
  });

  it('answers bad arguments with a structured error the agent can act on', async () => {
    const result = await client.callTool('get_platform_info', { topic: 'weather', extra: 1 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.['io.campaign-platform/error']).toMatchObject({ code: 'validation_failed' });
    expect(result.content[0]?.text).toMatch(/^validation_failed: Invalid arguments for get_platform_info: /);
    expect(result.content[0]?.text).toContain('unknown argument(s): extra');
  });
});
