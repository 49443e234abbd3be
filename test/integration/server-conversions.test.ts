/**
 * Server-side conversions (`POST /api/v1/conversions`) and campaign goals, on a real platform: accepted and
 * deduplicated by the caller's event id, validated per conversion against the workspace, refused whole when the
 * body is malformed, authenticated like the tool server (no key 401, viewer 403, a foreign browser Origin 403),
 * and attributed by the rollup only for the campaign's goals. Goals are set through a real MCP client.
 */
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import { CONVERSIONS_PATH } from '../../src/http/routes/conversions.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const VISITOR = 'AAAAAAAAAAAAAAAAAAAAAA';

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
let seeded: SeededWorkspace;
let otherSeeded: SeededWorkspace;
let client: ConnectedClient;

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content.map((c) => c.text).join(' ')}`);
  return result.structuredContent as Record<string, any>;
}

async function post(body: unknown, headers: Record<string, string> = { 'x-api-key': tenant.apiKey }) {
  const response = await testFetch(`${platform.urls.platform}${CONVERSIONS_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function conversionRows(): Promise<{ event_id: string; goal: string; session_id: string }[]> {
  return platform.container.orm.em
    .getConnection()
    .execute(`select event_id::text, goal, session_id from analytics_events where type = 'conversion' order by goal`);
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'conversions' });
  tenant = await createTenant(platform.container, { name: 'Goal Co' });
  other = await createTenant(platform.container, { name: 'Elsewhere' });
  seeded = await seedWorkspace(platform.container, tenant, 'Goal');
  otherSeeded = await seedWorkspace(platform.container, other, 'Else');
  client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
});

afterAll(async () => {
  await client?.close();
  await platform?.close();
  await closeTestFetch();
});

test('goals are set through manage_campaigns and validated', async () => {
  const updated = ok(
    await client.callTool('manage_campaigns', {
      action: 'update',
      campaignId: seeded.campaignId,
      conversionGoals: ['purchase', 'purchase', 'signup'],
    }),
  );
  expect(updated.campaign.conversionGoals).toEqual(['purchase', 'signup']);
  const read = ok(await client.callTool('query_campaigns', { action: 'get', campaignId: seeded.campaignId }));
  expect(read.campaign.conversionGoals).toEqual(['purchase', 'signup']);
  const bad = await client.callTool('manage_campaigns', {
    action: 'update',
    campaignId: seeded.campaignId,
    conversionGoals: ['no spaces allowed'],
  });
  expect(bad.isError).toBe(true);
  expect(bad.content[0]!.text).toMatch(/conversionGoals.*1–64 letters/);
});

test('accepted once: a replay of the same eventId is a duplicate, not a second conversion', async () => {
  const eventId = uuidv7();
  const conversion = { eventId, sessionId: VISITOR, goal: 'purchase', value: 30, campaignId: seeded.campaignId };
  const first = await post({ conversions: [conversion] });
  expect(first).toEqual({ status: 202, body: { accepted: 1, duplicates: 0, rejected: [] } });
  const replay = await post({ conversions: [conversion] });
  expect(replay).toEqual({ status: 202, body: { accepted: 0, duplicates: 1, rejected: [] } });
  expect((await conversionRows()).filter((row) => row.event_id === eventId)).toHaveLength(1);
});

test('each conversion is checked against this workspace; the valid ones are recorded', async () => {
  const before = (await conversionRows()).length;
  const result = await post({
    conversions: [
      { eventId: randomUUID(), sessionId: VISITOR, goal: 'signup', occurredAt: new Date().toISOString() },
      { eventId: uuidv7(), sessionId: VISITOR, goal: 'signup', campaignId: otherSeeded.campaignId },
      {
        eventId: uuidv7(),
        sessionId: VISITOR,
        goal: 'signup',
        campaignId: seeded.campaignId,
        variantId: otherSeeded.variantId,
      },
      { eventId: 'not-a-uuid', sessionId: VISITOR, goal: 'signup' },
      { eventId: randomUUID(), sessionId: 'short', goal: 'signup' },
      { eventId: randomUUID(), sessionId: VISITOR, goal: 'signup', occurredAt: '2020-01-01T00:00:00Z' },
      { eventId: randomUUID(), sessionId: VISITOR, goal: 'signup' },
    ],
  });
  expect(result.status).toBe(202);
  expect(result.body.accepted).toBe(1);
  expect(result.body.rejected.map((r: any) => r.index)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(result.body.rejected[0].reason).toBe(`campaignId: campaign ${otherSeeded.campaignId} was not found`);
  expect(result.body.rejected[1].reason).toMatch(/is not a variant of/);
  expect(result.body.rejected[2].reason).toMatch(/^eventId: must be a UUID/);
  expect(result.body.rejected[3].reason).toMatch(/^sessionId: .*cp_vid/);
  expect(result.body.rejected[4].reason).toBe('occurredAt: more than 7 days ago');
  // A v4 id without occurredAt has no stable time, so a retry could not be recognised: refused.
  expect(result.body.rejected[5].reason).toMatch(/^occurredAt: required unless eventId is a UUIDv7/);
  expect((await conversionRows()).length).toBe(before + 1);
});

test('a malformed body is a 400 with the reason, and nothing is written', async () => {
  const before = (await conversionRows()).length;
  const cases = [
    { body: '{not json', status: 400 },
    { body: { conversions: [] }, status: 400 },
    { body: { events: [{}] }, status: 400 },
    { body: { conversions: Array.from({ length: 101 }, () => ({})) }, status: 400 },
  ];
  for (const { body, status } of cases) {
    const result = await post(body);
    expect(result.status).toBe(status);
    expect(result.body.error_description).toEqual(expect.any(String));
  }
  expect((await post({ conversions: [] })).body.error_description).toMatch(/\{"conversions": \[1–100 conversions\]\}/);
  expect((await conversionRows()).length).toBe(before);
});

test('authentication: no or unknown key 401 with a challenge, a viewer key 403', async () => {
  const body = { conversions: [{ eventId: uuidv7(), sessionId: VISITOR, goal: 'purchase' }] };
  const missing = await testFetch(`${platform.urls.platform}${CONVERSIONS_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(missing.status).toBe(401);
  expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
  expect(await missing.json()).toMatchObject({ error: 'missing_credentials', error_description: expect.any(String) });
  const unknown = await post(body, { 'x-api-key': `${tenant.apiKey}x` });
  expect(unknown.status).toBe(401);
  expect(unknown.body).toMatchObject({ error: 'malformed_api_key' });
  const viewerKey = await createKey(platform.container, tenant, 'viewer');
  const refused = await post(body, { 'x-api-key': viewerKey });
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ error: 'forbidden' });
});

test("a browser page of another origin is refused before authentication, like the tool server's", async () => {
  const before = (await conversionRows()).length;
  const conversion = { eventId: uuidv7(), sessionId: VISITOR, goal: 'purchase', campaignId: seeded.campaignId };
  const foreign = await post(
    { conversions: [conversion] },
    { 'x-api-key': tenant.apiKey, origin: 'https://evil.example' },
  );
  expect(foreign).toEqual({
    status: 403,
    body: {
      error: 'forbidden_origin',
      error_description: 'Origin https://evil.example is not allowed to call this server',
    },
  });
  expect((await conversionRows()).length).toBe(before);
  // Its preflight is refused too; the platform's own origin passes both, with CORS headers.
  const preflight = (origin: string) =>
    testFetch(`${platform.urls.platform}${CONVERSIONS_PATH}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
  expect((await preflight('https://evil.example')).status).toBe(403);
  const own = new URL(platform.urls.platform).origin;
  const allowedPreflight = await preflight(own);
  expect(allowedPreflight.status).toBe(204);
  expect(allowedPreflight.headers.get('access-control-allow-origin')).toBe(own);
  const same = await post(
    { conversions: [{ ...conversion, eventId: uuidv7() }] },
    { 'x-api-key': tenant.apiKey, origin: own },
  );
  expect(same).toEqual({ status: 202, body: { accepted: 1, duplicates: 0, rejected: [] } });
});

test("the rollup attributes a server conversion to the session's variant, only for the campaign's goals", async () => {
  // The visitor saw the control variant first, then converted on a counted goal and on an uncounted one.
  const visitor = 'BBBBBBBBBBBBBBBBBBBBBB';
  await createSiteEventRecorder(platform.container.orm).record([
    {
      eventId: uuidv7(),
      workspaceId: tenant.workspaceId,
      type: 'impression',
      occurredAt: new Date(Date.now() - 60_000),
      sessionId: visitor,
      campaignId: seeded.campaignId,
      variantId: seeded.variantId,
      zoneId: seeded.zoneId,
    },
  ]);
  const result = await post({
    conversions: [
      { eventId: uuidv7(), sessionId: visitor, goal: 'newsletter' },
      { eventId: uuidv7(), sessionId: visitor, goal: 'signup', value: 12.5 },
    ],
  });
  expect(result.body).toMatchObject({ accepted: 2, rejected: [] });
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  const [totals] = await platform.container.orm.em
    .getConnection()
    .execute<{ exposed_sessions: string; converted_sessions: string; converted_value: string }[]>(
      `select exposed_sessions, converted_sessions, converted_value::text from analytics_variant_totals
       where campaign_id = ? and variant_id = ?`,
      [seeded.campaignId, seeded.variantId],
    );
  expect(totals).toEqual({ exposed_sessions: '1', converted_sessions: '1', converted_value: '12.50' });
});
