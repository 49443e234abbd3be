/**
 * The console acts through the tool wrapper (console-tools.ts): a signed-in person's action runs the same tool
 * action as an agent's `tools/call`, so the role check, the result and the audit line are the same. Compared here
 * against real MCP calls over HTTP with API keys of the same roles.
 */
import { createConsoleTools, type ConsoleCaller } from '../../src/http/dashboard/console-tools.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import type { Role } from '../../src/domain/workspaces/roles.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { modernRpc } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-tools' });
  tenant = await createTenant(platform.container, { name: 'Console tools' });
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

const tools = () =>
  createConsoleTools({
    orm: platform.container.orm,
    services: platform.container.services,
    log: platform.container.log,
  });

async function personWithRole(role: Role): Promise<ConsoleCaller> {
  const em = acrossWorkspaces(platform.container.orm.em);
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await platform.container.services.workspaces.createUser(em, { email, name: `A ${role}` });
  await platform.container.services.workspaces.setMember(em, tenant.workspaceId, { email, role });
  return { userId: user.id, workspace: { id: tenant.workspaceId, name: 'Console tools', role }, requestId: null };
}

async function auditLines(actor: string) {
  return acrossWorkspaces(platform.container.orm.em)
    .getConnection()
    .execute<{ action: string; target_type: string | null; target_id: string | null; outcome: string }[]>(
      'select action, target_type, target_id, outcome from audit_events where workspace_id = ? and actor = ? order by created_at',
      [tenant.workspaceId, actor],
    );
}

async function mcpCall(key: string, args: Record<string, unknown>) {
  return modernRpc(platform.urls.mcp, key, 'tools/call', 'manage_campaigns', {
    name: 'manage_campaigns',
    arguments: args,
  });
}

it('refuses a viewer as the MCP wrapper does, and writes the same denied line', async () => {
  const viewer = await personWithRole('viewer');
  const viewerKey = await createKey(platform.container, tenant, 'viewer', 'viewer key');
  const viewerKeyId = (
    await platform.container.services.workspaces.listApiKeys(
      acrossWorkspaces(platform.container.orm.em),
      tenant.workspaceId,
    )
  ).find((k) => k.name === 'viewer key')!.id;

  const args = { action: 'create', name: 'Not allowed' };
  await expect(tools().call(viewer, 'manage_campaigns', args)).rejects.toMatchObject({
    code: 'forbidden',
    message: 'Your role (viewer) does not allow manage_campaigns action=create',
  });
  const mcp = await mcpCall(viewerKey, args);
  expect((mcp.result as { isError?: boolean }).isError).toBe(true);

  const console = await auditLines(`user:${viewer.userId}`);
  const agent = await auditLines(`key:${viewerKeyId}`);
  expect(console).toEqual([
    { action: 'mcp.manage_campaigns.create', target_type: null, target_id: null, outcome: 'denied' },
  ]);
  expect(console).toEqual(agent);
  const { campaigns } = (await tools().call(viewer, 'query_campaigns', { action: 'list' })).structured as {
    campaigns: unknown[];
  };
  expect(campaigns).toEqual([]);
});

it('acts for an editor with the same result shape and audit line as the agent', async () => {
  const editor = await personWithRole('editor');
  const answer = await tools().call<{ campaign: { id: string; name: string }; workspace: { name: string } }>(
    editor,
    'manage_campaigns',
    { action: 'create', name: 'Made in the console' },
  );
  expect(answer.structured.campaign.name).toBe('Made in the console');
  expect(answer.structured.workspace.name).toBe('Console tools');
  expect(answer.text).toMatch(/^\[Console tools\] /);
  const agent = await mcpCall(tenant.apiKey, { action: 'create', name: 'Made by the agent' });
  const agentCampaign = (agent.result as { structuredContent: { campaign: { id: string } } }).structuredContent
    .campaign;

  const [consoleLine] = await auditLines(`user:${editor.userId}`);
  const [agentLine] = await auditLines(`key:${tenant.apiKeyId}`);
  expect(consoleLine).toEqual({
    action: 'mcp.manage_campaigns.create',
    target_type: null,
    target_id: null,
    outcome: 'success',
  });
  expect(agentLine).toEqual(consoleLine);
  expect(agentCampaign.id).not.toBe(answer.structured.campaign.id);
});

it('turns an error result back into the AppError it was made from', async () => {
  const editor = await personWithRole('editor');
  await expect(
    tools().call(editor, 'query_campaigns', { action: 'get', campaignId: 'cmp_00000000000000000000000000' }),
  ).rejects.toMatchObject({ code: 'not_found' });
  await expect(tools().call(editor, 'query_campaigns', { action: 'get' })).rejects.toMatchObject({
    code: 'validation_failed',
  });
});
