/**
 * Two workspaces, fully isolated: every credential is bound to exactly one workspace and sees only it; ids of
 * the other workspace answer exactly like ids that do not exist.
 */
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import {
  authorizationCodeTokens,
  authorizeOverHttp,
  callWithBearer,
  pkce,
  registerClient,
} from '../support/oauth-http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { testFetch } from '../support/http.ts';
import { acrossWorkspaces, workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { seedWorkspace } from '../support/seed.ts';

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
const PASSWORD = 'correct horse battery staple';

async function organizationVia(headers: Record<string, string>) {
  const response = await testFetch(platform.urls.mcp, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'tools/call',
      params: { name: 'get_platform_info', arguments: { topic: 'organization' } },
    }),
  });
  return ((await response.json()) as any).result.structuredContent.organization;
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'isolation' });
  a = await createTenant(platform.container, { name: 'Workspace A', credits: 5, password: PASSWORD });
  b = await createTenant(platform.container, { name: 'Workspace B', credits: 7 });
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

it('binds each API key to its own workspace, also under concurrent calls with the same JSON-RPC id', async () => {
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) => organizationVia({ 'x-api-key': i % 2 === 0 ? a.apiKey : b.apiKey })),
  );
  results.forEach((organization, i) => {
    const expected = i % 2 === 0 ? a : b;
    expect(organization).toMatchObject({
      id: expected.workspaceId,
      name: expected.workspaceName,
      credits: { available: i % 2 === 0 ? 5 : 7 },
    });
  });
});

it('binds an OAuth token to the workspace picked at consent', async () => {
  const { json } = await registerClient(platform.urls.auth, {
    client_name: 'iso',
    redirect_uris: ['http://127.0.0.1:40000/cb'],
  });
  const tokens = await authorizationCodeTokens({
    authUrl: platform.urls.auth,
    clientId: json.client_id,
    redirectUri: 'http://127.0.0.1:40000/cb',
    email: a.email,
    password: PASSWORD,
    workspaceId: a.workspaceId,
  });
  const result = await callWithBearer(platform.urls.mcp, tokens.json.access_token);
  expect(result.body.result.structuredContent.organization.id).toBe(a.workspaceId);
});

it('refuses to bind a grant to a workspace the person is not a member of', async () => {
  const { json } = await registerClient(platform.urls.auth, {
    client_name: 'iso2',
    redirect_uris: ['http://127.0.0.1:40001/cb'],
  });
  const { challenge } = pkce();
  const { redirect, page } = await authorizeOverHttp({
    authUrl: platform.urls.auth,
    clientId: json.client_id,
    redirectUri: 'http://127.0.0.1:40001/cb',
    codeChallenge: challenge,
    email: a.email,
    password: PASSWORD,
    workspaceId: b.workspaceId,
  });
  expect(redirect).toBeNull();
  expect(page!.status).toBe(400);
  expect(await page!.text()).toContain('Choose one of your workspaces');
});

it("answers another workspace's job exactly like a missing one", async () => {
  const { jobs } = platform.container.services;
  const em = acrossWorkspaces(platform.container.orm.em);
  const error = await jobs
    .get(workspaceScope(em, b.workspaceId, actors.operator), 'job_01J0000000000000000000000')
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'not_found', message: 'Job job_01J0000000000000000000000 was not found' });
});

it("keeps each workspace's A/B tests to itself: another's campaign is a missing one, and a page lists only its own", async () => {
  // The experiments read campaigns and variants with plain statements (no ORM filter), binding the workspace.
  const { analytics } = platform.container.services;
  const seededA = await seedWorkspace(platform.container, a, 'Isolated A');
  await seedWorkspace(platform.container, b, 'Isolated B');
  const scopeB = workspaceScope(acrossWorkspaces(platform.container.orm.em), b.workspaceId, actors.operator);
  const error = await analytics.experiments(scopeB, { campaignId: seededA.campaignId }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'not_found', message: `Campaign ${seededA.campaignId} was not found` });
  const pageB = await analytics.experiments(scopeB, { limit: 100 });
  const listed = [...pageB.experiments, ...pageB.notExperiments].map((row) => row.campaignName);
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.every((name) => name.startsWith('Isolated B'))).toBe(true);
  const variantsB = pageB.experiments.flatMap((experiment) => [experiment.control, ...experiment.variants]);
  expect(variantsB.length).toBeGreaterThan(0);
  const ownVariants = await platform.container.orm.em
    .getConnection()
    .execute<{ id: string }[]>('select id from variants where workspace_id = ?', [b.workspaceId]);
  const own = new Set(ownVariants.map((row) => row.id));
  expect(variantsB.every((arm) => own.has(arm.variantId))).toBe(true);
});
