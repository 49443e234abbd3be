/**
 * Every tool action, replayed three ways over a real MCP client:
 *   - isolation: workspace A's owner with workspace B's ids → "not found", B unchanged, nothing of B leaks;
 *   - roles: every mutation by A's viewer → "forbidden", A unchanged;
 *   - deprecated reads: external clients are refused with the query_* tool to use; a verified internal OAuth
 *     client may still use them.
 * The table must cover every action of the catalogue, so a new action cannot skip these checks.
 */
import { CHANNEL_NETWORKS, type ChannelNetwork } from '../../src/domain/channels/channel-networks.ts';
import { channelToolNames } from '../../src/mcp/channel-tool-names.ts';
import { CATALOGUE } from '../../src/mcp/registry.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { authorizationCodeTokens, registerClient } from '../support/oauth-http.ts';
import { profileUrl, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { domainFingerprint, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

type Case = (ids: SeededWorkspace) => Record<string, unknown>;

/** Every channel tool's actions, per network, on the network's seeded account and draft. */
function channelCases(network: ChannelNetwork): [string, Case][] {
  const { read, write } = channelToolNames(network);
  const of = (ids: SeededWorkspace) => ids.channels[network];
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();
  return [
    [`${read}.accounts`, () => ({ action: 'accounts' })],
    [`${read}.posts`, (ids) => ({ action: 'posts', accountId: of(ids).accountId })],
    [`${read}.get_post`, (ids) => ({ action: 'get_post', postId: of(ids).postId })],
    [`${read}.metrics`, (ids) => ({ action: 'metrics', postId: of(ids).postId })],
    [`${read}.quota`, (ids) => ({ action: 'quota', accountId: of(ids).accountId })],
    [`${write}.validate`, (ids) => ({ action: 'validate', postId: of(ids).postId })],
    [`${write}.draft`, (ids) => ({ action: 'draft', accountId: of(ids).accountId, text: 'Matrix post' })],
    [`${write}.schedule`, (ids) => ({ action: 'schedule', postId: of(ids).postId, scheduledAt: tomorrow() })],
    [`${write}.publish_now`, (ids) => ({ action: 'publish_now', postId: of(ids).postId })],
    [`${write}.reschedule`, (ids) => ({ action: 'reschedule', postId: of(ids).postId, scheduledAt: tomorrow() })],
    [`${write}.update`, (ids) => ({ action: 'update', postId: of(ids).postId, text: 'Edited post' })],
    [`${write}.cancel`, (ids) => ({ action: 'cancel', postId: of(ids).postId })],
    [`${write}.delete`, (ids) => ({ action: 'delete', postId: of(ids).postId })],
    [`${write}.retry`, (ids) => ({ action: 'retry', postId: of(ids).postId })],
  ];
}

/** Valid arguments for every action, built from a workspace's seeded ids. */
const CASES: Record<string, Case> = {
  'query_campaigns.list': () => ({ action: 'list' }),
  'query_campaigns.get': (ids) => ({ action: 'get', campaignId: ids.campaignId }),
  'query_campaigns.variants': (ids) => ({ action: 'variants', campaignId: ids.campaignId, includeHistory: true }),
  'query_campaigns.deployments': (ids) => ({ action: 'deployments', campaignId: ids.campaignId }),
  'manage_campaigns.create': (ids) => ({ action: 'create', name: 'Matrix', productIds: [ids.productId] }),
  'manage_campaigns.update': (ids) => ({ action: 'update', campaignId: ids.campaignId, name: 'Renamed' }),
  'manage_campaigns.delete': (ids) => ({ action: 'delete', campaignId: ids.draftCampaignId }),
  'manage_campaigns.create_variant': (ids) => ({
    action: 'create_variant',
    campaignId: ids.campaignId,
    headline: 'H',
    body: 'B',
    callToAction: 'Go',
  }),
  'manage_campaigns.update_variant': (ids) => ({
    action: 'update_variant',
    variantId: ids.variantId,
    headline: 'Edited',
  }),
  'manage_campaigns.delete_variant': (ids) => ({ action: 'delete_variant', variantId: ids.secondVariantId }),
  'manage_campaigns.publish': (ids) => ({ action: 'publish', campaignId: ids.draftCampaignId }),
  'manage_campaigns.deploy': (ids) => ({ action: 'deploy', campaignId: ids.campaignId, zoneId: ids.freeZoneId }),
  'manage_campaigns.update_deployment': (ids) => ({
    action: 'update_deployment',
    deploymentId: ids.deploymentId,
    deploymentStatus: 'paused',
  }),
  'query_products.list': () => ({ action: 'list' }),
  'query_products.get': (ids) => ({ action: 'get', productId: ids.productId }),
  'manage_products.create': () => ({ action: 'create', title: 'Matrix product' }),
  'manage_products.import_from_url': () => ({ action: 'import_from_url', sourceUrl: 'http://127.0.0.1/product' }),
  'manage_products.update': (ids) => ({ action: 'update', productId: ids.productId, title: 'Renamed product' }),
  'manage_products.delete': (ids) => ({ action: 'delete', productId: ids.productId }),
  'query_surfaces.list_surfaces': () => ({ operation: 'list_surfaces' }),
  'query_surfaces.get_surface': (ids) => ({ operation: 'get_surface', surfaceId: ids.surfaceId }),
  'query_surfaces.list_zones': (ids) => ({ operation: 'list_zones', surfaceId: ids.surfaceId }),
  'manage_surfaces.create_surface': () => ({ operation: 'create_surface', name: 'Newsletter', kind: 'email' }),
  'manage_surfaces.create_zone': (ids) => ({
    operation: 'create_zone',
    surfaceId: ids.surfaceId,
    name: 'Side',
    key: 'side',
    kind: 'card',
  }),
  'manage_surfaces.list_surfaces': () => ({ operation: 'list_surfaces' }),
  'manage_surfaces.get_surface': (ids) => ({ operation: 'get_surface', surfaceId: ids.surfaceId }),
  'manage_surfaces.list_zones': (ids) => ({ operation: 'list_zones', surfaceId: ids.surfaceId }),
  'query_analytics.snapshot': (ids) => ({
    action: 'snapshot',
    campaignId: ids.campaignId,
    sections: ['summary', 'campaigns', 'variants'],
  }),
  'query_analytics.ab_test': (ids) => ({ action: 'ab_test', campaignId: ids.campaignId }),
  'query_analytics.cvg_dashboard': (ids) => ({ action: 'cvg_dashboard', campaignId: ids.campaignId }),
  'query_analytics.insights': (ids) => ({ action: 'insights', campaignId: ids.campaignId }),
  'query_brand.get': () => ({ action: 'get' }),
  'manage_brand.update_brandbook': () => ({
    action: 'update_brandbook',
    brandbook: { rules: ['Always show the price'] },
  }),
  'manage_brand.update_profile': () => ({ action: 'update_profile', profile: { tagline: 'Linen for summer' } }),
  'manage_brand.update_voice': () => ({ action: 'update_voice', voice: { tone: 'warm' } }),
  'manage_brand.update_concierge': () => ({ action: 'update_concierge', concierge: { enabled: false } }),
  'manage_brand.get': () => ({ action: 'get' }),
  'query_video.templates': () => ({ action: 'templates' }),
  'get_platform_info.health': () => ({ topic: 'health' }),
  'get_platform_info.organization': () => ({ topic: 'organization' }),
  'get_platform_info.tool_profiles': () => ({ topic: 'tool_profiles' }),
  'query_campaigns.generation_status': (ids) => ({ action: 'generation_status', campaignId: ids.campaignId }),
  'generate_campaign.start': (ids) => ({ mode: 'start', intent: 'Summer launch', productIds: [ids.productId] }),
  'generate_campaign.regenerate': (ids) => ({ mode: 'regenerate', campaignId: ids.campaignId, fromStep: 'brief' }),
  'query_video.progress': (ids) => ({ action: 'progress', jobId: ids.jobId }),
  'render_video.video': (ids) => ({ mode: 'video', templateId: 'tpl_product_spotlight', campaignId: ids.campaignId }),
  'render_video.campaign': (ids) => ({ mode: 'campaign', campaignId: ids.campaignId }),
  'render_video.still': (ids) => ({ mode: 'still', campaignId: ids.campaignId, variantId: ids.variantId }),
  'query_video_commissions.list': () => ({ action: 'list' }),
  'query_video_commissions.get': (ids) => ({ action: 'get', commissionId: ids.commissionId }),
  'video_commission.create': (ids) => ({
    action: 'create',
    title: 'Matrix film',
    brief: 'A film about the summer collection.',
    campaignId: ids.campaignId,
  }),
  'video_commission.approve': (ids) => ({ action: 'approve', commissionId: ids.commissionId }),
  'video_commission.revise': (ids) => ({ action: 'revise', commissionId: ids.commissionId, notes: 'Warmer colours' }),
  'video_commission.cancel': (ids) => ({ action: 'cancel', commissionId: ids.commissionId }),
  'video_commission.list': () => ({ action: 'list' }),
  'video_commission.get': (ids) => ({ action: 'get', commissionId: ids.commissionId }),
  ...Object.fromEntries(CHANNEL_NETWORKS.flatMap(channelCases)),
};

const ID_FIELDS = [
  'campaignId',
  'variantId',
  'deploymentId',
  'productId',
  'productIds',
  'surfaceId',
  'zoneId',
  'jobId',
  'commissionId',
  'accountId',
  'postId',
];

const ALL = [...CATALOGUE.get('autonomous_ops')!.tools.values()].flatMap(({ definition }) =>
  Object.entries(definition.actions).map(([value, action]) => ({
    key: `${definition.name}.${value}`,
    tool: definition.name,
    mutation: !definition.annotations.readOnlyHint && action.permission !== 'workspace:read',
    internalOnly: Boolean(action.internalOnly),
  })),
);

const errorCode = (result: ToolCallResult) =>
  (result._meta?.['io.campaign-platform/error'] as { code?: string } | undefined)?.code;

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
let aIds: SeededWorkspace;
let bIds: SeededWorkspace;
let owner: ConnectedClient;
let viewer: ConnectedClient;
const PASSWORD = 'matrix password 123';

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'toolmatrix' });
  a = await createTenant(platform.container, { name: 'Alpha Outfitters', password: PASSWORD });
  b = await createTenant(platform.container, { name: 'Beta Bakery' });
  aIds = await seedWorkspace(platform.container, a, 'Alpha');
  bIds = await seedWorkspace(platform.container, b, 'Beta');
  // Every tool: the autonomous profile's call code (the channel tools are not in the default profile).
  const url = await profileUrl(platform, 'autonomous_ops');
  owner = await connectV2(url, { 'x-api-key': a.apiKey });
  viewer = await connectV2(url, { 'x-api-key': await createKey(platform.container, a, 'viewer') });
});

afterAll(async () => {
  await owner?.close();
  await viewer?.close();
  await platform.close();
  await closeTestFetch();
});

it('has a case for every action of every tool', () => {
  expect(ALL.map((entry) => entry.key).filter((key) => !CASES[key])).toEqual([]);
});

describe("isolation: A replays every action with B's ids", () => {
  const bSecrets = () => [...Object.values(bIds), b.workspaceId, 'Beta'];

  it.each(ALL.filter((entry) => !entry.internalOnly).map((entry) => [entry.key, entry]))('%s', async (key, entry) => {
    const args = CASES[key]!(bIds);
    const before = await domainFingerprint(platform.container, b.workspaceId);
    const result = await owner.callTool(entry.tool, args);
    const usesIds = Object.keys(args).some((field) => ID_FIELDS.includes(field));
    if (usesIds) {
      expect({ key, code: errorCode(result) }).toEqual({ key, code: 'not_found' });
      expect(result.content[0]!.text).toMatch(/^not_found: [\w ]+ \S+ was not found$/);
    }
    // The ids A sent may be echoed back ("… was not found"); nothing else of B may appear.
    const visible = JSON.stringify([result.content, result.structuredContent]);
    const sent = JSON.stringify(args);
    for (const secret of bSecrets().filter((value) => !sent.includes(value)))
      expect({ key, leaked: visible.includes(secret) ? secret : null }).toEqual({ key, leaked: null });
    expect(await domainFingerprint(platform.container, b.workspaceId)).toBe(before);
  });
});

describe('roles: a viewer may read but every mutation is refused and changes nothing', () => {
  it.each(ALL.filter((entry) => entry.mutation).map((entry) => [entry.key, entry]))('%s', async (key, entry) => {
    const before = await domainFingerprint(platform.container, a.workspaceId);
    const result = await viewer.callTool(entry.tool, CASES[key]!(aIds));
    expect({ key, code: errorCode(result) }).toEqual({ key, code: 'forbidden' });
    expect(result.content[0]!.text).toMatch(/^forbidden: Your role \(viewer\) does not allow /);
    expect(await domainFingerprint(platform.container, a.workspaceId)).toBe(before);
  });

  it.each(ALL.filter((entry) => !entry.mutation && !entry.internalOnly).map((entry) => [entry.key, entry]))(
    'reads: %s',
    async (key, entry) => {
      const result = await viewer.callTool(entry.tool, CASES[key]!(aIds));
      expect({ key, isError: result.isError ?? false }).toEqual({ key, isError: false });
    },
  );

  it('records refused mutations in the audit log', async () => {
    const rows = await platform.container.orm.em
      .getConnection()
      .execute<{ action: string; outcome: string }[]>(
        `select action, outcome from audit_events where workspace_id = ? and outcome = 'denied' and action like 'mcp.%'`,
        [a.workspaceId],
      );
    expect(rows.length).toBe(ALL.filter((entry) => entry.mutation).length);
  });
});

describe('deprecated read actions', () => {
  const deprecated = ALL.filter((entry) => entry.internalOnly);

  it.each(deprecated.map((entry) => [entry.key, entry]))(
    'refuses %s for an external client, naming the query tool',
    async (key, entry) => {
      const result = await owner.callTool(entry.tool, CASES[key]!(aIds));
      expect(errorCode(result)).toBe('deprecated_action');
      expect(result.content[0]!.text).toMatch(/is deprecated for external clients; use query_\w+ instead$/);
    },
  );

  it('serves them to a verified internal OAuth client', async () => {
    const { json } = await registerClient(platform.urls.auth, {
      client_name: 'Internal console',
      redirect_uris: ['http://127.0.0.1:40100/cb'],
    });
    await platform.container.orm.em
      .getConnection()
      .execute(
        `insert into oauth_client_flags (client_id, internal, note, updated_at) values (?, true, 'test', now())`,
        [json.client_id],
      );
    const tokens = await authorizationCodeTokens({
      authUrl: platform.urls.auth,
      clientId: json.client_id,
      redirectUri: 'http://127.0.0.1:40100/cb',
      email: a.email,
      password: PASSWORD,
      workspaceId: a.workspaceId,
    });
    const internal = await connectV2(platform.urls.mcp, { authorization: `Bearer ${tokens.json.access_token}` });
    try {
      for (const entry of deprecated) {
        const result = await internal.callTool(entry.tool, CASES[entry.key]!(aIds));
        expect({ key: entry.key, isError: result.isError ?? false }).toEqual({ key: entry.key, isError: false });
      }
      const surface = await internal.callTool('manage_surfaces', {
        operation: 'get_surface',
        surfaceId: aIds.surfaceId,
      });
      expect(surface.structuredContent).toMatchObject({ surface: { id: aIds.surfaceId, zones: expect.any(Array) } });
    } finally {
      await internal.close();
    }
  });
});
