/**
 * Recipe 4 of the spec: an agency runs two workspaces with one API key each, interleaving calls. Every answer
 * names the workspace it acted on (organization info, and the echo on every mutation), and nothing crosses.
 */
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV1, connectV2, type ConnectedClient } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let north: Tenant;
let south: Tenant;
let clients: Map<string, ConnectedClient>;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'agency' });
  north = await createTenant(platform.container, { name: 'North Roasters' });
  south = await createTenant(platform.container, { name: 'South Bakery' });
  clients = new Map([
    [north.workspaceId, await connectV2(platform.urls.mcp, { 'x-api-key': north.apiKey })],
    [south.workspaceId, await connectV1(platform.urls.mcp, { 'x-api-key': south.apiKey })],
  ]);
});

afterAll(async () => {
  for (const client of clients?.values() ?? []) await client.close();
  await platform.close();
  await closeTestFetch();
});

it('names its own workspace in every answer while calls to both are interleaved', async () => {
  const tenants = [north, south, north, south, south, north];
  const batch = tenants.flatMap((tenant, i) => {
    const client = clients.get(tenant.workspaceId)!;
    return [
      client
        .callTool('get_platform_info', { topic: 'organization' })
        .then((result) => ({ tenant, kind: 'organization', result })),
      client
        .callTool('manage_campaigns', { action: 'create', name: `Batch ${i}` })
        .then((result) => ({ tenant, kind: 'create', result })),
      client
        .callTool('manage_products', { action: 'create', title: `Item ${i}` })
        .then((result) => ({ tenant, kind: 'product', result })),
    ];
  });
  const answers = await Promise.all(batch);
  for (const { tenant, kind, result } of answers) {
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as Record<string, any>;
    if (kind === 'organization') {
      expect(structured.organization).toMatchObject({ id: tenant.workspaceId, name: tenant.workspaceName });
    } else {
      expect(structured.workspace).toEqual({ id: tenant.workspaceId, name: tenant.workspaceName });
      expect(result.content[0]!.text!.startsWith(`[${tenant.workspaceName}] `)).toBe(true);
    }
  }

  for (const tenant of [north, south]) {
    const listed = await clients.get(tenant.workspaceId)!.callTool('query_campaigns', { action: 'list' });
    const names = (listed.structuredContent as { campaigns: { name: string }[] }).campaigns.map((c) => c.name).sort();
    const expected = tenants.flatMap((t, i) => (t === tenant ? [`Batch ${i}`] : [])).sort();
    expect(names).toEqual(expected);
  }
});

it('records each mutation in its own workspace audit log, with the acting key', async () => {
  const rows = await platform.container.orm.em
    .getConnection()
    .execute<{ workspace_id: string; actor: string; action: string }[]>(
      `select workspace_id, actor, action from audit_events where action like 'mcp.%' and outcome = 'success' order by created_at`,
    );
  for (const tenant of [north, south]) {
    const own = rows.filter((row) => row.workspace_id === tenant.workspaceId);
    expect(own.map((row) => row.action).sort()).toEqual([
      ...Array(3).fill('mcp.manage_campaigns.create'),
      ...Array(3).fill('mcp.manage_products.create'),
    ]);
    expect(new Set(own.map((row) => row.actor))).toEqual(new Set([`key:${tenant.apiKeyId}`]));
  }
});
