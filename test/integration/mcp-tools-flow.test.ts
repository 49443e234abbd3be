/**
 * Every tool and action end to end, through each real MCP client line and protocol era: the SDK v2 client
 * pinned to 2026-07-28, the v2 client in its 2025 handshake, and the v1 SDK client (which validates every
 * `structuredContent` against the tool's advertised output schema). Each client works in a workspace of its
 * own; a real worker runs the republish workflow.
 */
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV1, connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { eventually } from '../support/poll.ts';
import { scopeOf } from '../support/seed.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'toolsflow', worker: true });
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

const code = (result: ToolCallResult) =>
  (result._meta?.['io.campaign-platform/error'] as { code?: string } | undefined)?.code;
const ok = (result: ToolCallResult) => {
  if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  return result.structuredContent as Record<string, any>;
};

const clients: [string, (tenant: Tenant) => Promise<ConnectedClient>][] = [
  ['SDK v2, 2026-07-28', (t) => connectV2(platform.urls.mcp, { 'x-api-key': t.apiKey }, 'modern')],
  ['SDK v2, 2025 handshake', (t) => connectV2(platform.urls.mcp, { 'x-api-key': t.apiKey }, 'legacy')],
  ['SDK v1', (t) => connectV1(platform.urls.mcp, { 'x-api-key': t.apiKey })],
];

describe.each(clients)('%s', (label, connect) => {
  let tenant: Tenant;
  let client: ConnectedClient;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    tenant = await createTenant(platform.container, { name: `Flow ${label}` });
    client = await connect(tenant);
  });
  afterAll(async () => {
    await client.close();
  });

  it('products: create, update, list, get, with the workspace echoed on every change', async () => {
    const created = await client.callTool('manage_products', {
      action: 'create',
      title: 'Linen shirt',
      price: 49.5,
      currency: 'eur',
      images: ['https://cdn.example.test/s.jpg'],
    });
    const product = ok(created).product;
    expect(product).toMatchObject({
      title: 'Linen shirt',
      price: 49.5,
      currency: 'EUR',
      origin: 'manual',
      untrusted: false,
    });
    expect(ok(created).workspace).toEqual({ id: tenant.workspaceId, name: tenant.workspaceName });
    expect(created.content[0]!.text).toBe(`[${tenant.workspaceName}] Created product "Linen shirt" (${product.id}).`);
    ids.product = product.id;
    const updated = ok(
      await client.callTool('manage_products', {
        action: 'update',
        productId: ids.product,
        attributes: { material: 'linen' },
        description: null,
      }),
    );
    expect(updated.product).toMatchObject({
      attributes: { material: 'linen' },
      description: null,
      title: 'Linen shirt',
    });
    expect(
      ok(await client.callTool('query_products', { action: 'list' })).products.map((p: { id: string }) => p.id),
    ).toEqual([ids.product]);
    expect(
      ok(await client.callTool('query_products', { action: 'get', productId: ids.product })).product.attributes,
    ).toEqual({ material: 'linen' });
    const bad = await client.callTool('manage_products', { action: 'create', title: '  ', currency: 'euro' });
    expect(code(bad)).toBe('validation_failed');
    expect(bad.content[0]!.text).toContain('currency');
  });

  it('surfaces and zones: create, list, get', async () => {
    const surface = ok(
      await client.callTool('manage_surfaces', {
        operation: 'create_surface',
        name: 'Summer page',
        kind: 'brand_page',
        path: '/summer',
      }),
    ).surface;
    expect(surface.url).toMatch(/^http:\/\/[a-z0-9-]+\.sites\.localhost:\d+\/summer$/);
    ids.surface = surface.id;
    const zone = ok(
      await client.callTool('manage_surfaces', {
        operation: 'create_zone',
        surfaceId: ids.surface,
        name: 'Hero',
        key: 'hero',
        kind: 'hero',
        constraints: { maxHeadlineLength: 60 },
      }),
    ).zone;
    ids.zone = zone.id;
    expect(
      code(
        await client.callTool('manage_surfaces', {
          operation: 'create_zone',
          surfaceId: ids.surface,
          name: 'Again',
          key: 'hero',
          kind: 'card',
        }),
      ),
    ).toBe('conflict');
    expect(
      code(await client.callTool('manage_surfaces', { operation: 'create_surface', name: 'Social', kind: 'social' })),
    ).toBe('validation_failed');
    expect(ok(await client.callTool('query_surfaces', { operation: 'list_surfaces' })).surfaces).toHaveLength(1);
    expect(
      ok(await client.callTool('query_surfaces', { operation: 'get_surface', surfaceId: ids.surface })).surface.zones,
    ).toMatchObject([{ id: ids.zone, key: 'hero', constraints: { maxHeadlineLength: 60 } }]);
    expect(
      ok(await client.callTool('query_surfaces', { operation: 'list_zones', surfaceId: ids.surface })).zones,
    ).toHaveLength(1);
  });

  it('campaigns and variants: create, edit with history and optimistic versions, publish, deploy', async () => {
    const campaign = ok(
      await client.callTool('manage_campaigns', {
        action: 'create',
        name: 'Summer linen',
        objective: 'Sell shirts',
        productIds: [ids.product],
        channels: ['web', 'email'],
      }),
    ).campaign;
    expect(campaign).toMatchObject({
      status: 'draft',
      productIds: [ids.product],
      channels: ['web', 'email'],
      slug: 'summer-linen',
    });
    ids.campaign = campaign.id;
    expect(code(await client.callTool('manage_campaigns', { action: 'publish', campaignId: ids.campaign }))).toBe(
      'conflict',
    );
    const first = ok(
      await client.callTool('manage_campaigns', {
        action: 'create_variant',
        campaignId: ids.campaign,
        headline: 'Stay cool',
        body: 'Linen for hot days.',
        callToAction: 'Shop now',
        channelFields: { email: { subject: 'Cool linen' } },
      }),
    ).variant;
    const second = ok(
      await client.callTool('manage_campaigns', {
        action: 'create_variant',
        campaignId: ids.campaign,
        headline: 'Feel light',
        body: 'Weightless.',
        callToAction: 'See more',
        variantStatus: 'active',
      }),
    ).variant;
    expect([first.isControl, second.isControl]).toEqual([true, false]);
    ids.variant = first.id;
    ids.second = second.id;
    const saved = ok(
      await client.callTool('manage_campaigns', {
        action: 'update_variant',
        variantId: ids.variant,
        headline: 'Stay cooler',
        expectedVersion: 1,
      }),
    ).variant;
    expect(saved).toMatchObject({ headline: 'Stay cooler', version: 2 });
    const stale = await client.callTool('manage_campaigns', {
      action: 'update_variant',
      variantId: ids.variant,
      headline: 'Lost update',
      expectedVersion: 1,
    });
    expect(code(stale)).toBe('conflict');
    expect(stale.content[0]!.text).toContain('now version 2');
    const variants = ok(
      await client.callTool('query_campaigns', { action: 'variants', campaignId: ids.campaign, includeHistory: true }),
    ).variants;
    expect(variants.find((v: { id: string }) => v.id === ids.variant).history).toMatchObject([
      { version: 1, snapshot: { headline: 'Stay cool' } },
    ]);

    const published = ok(await client.callTool('manage_campaigns', { action: 'publish', campaignId: ids.campaign }));
    expect(published.campaign).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    const deployment = ok(
      await client.callTool('manage_campaigns', {
        action: 'deploy',
        campaignId: ids.campaign,
        zoneId: ids.zone,
        priority: 5,
      }),
    ).deployment;
    expect(deployment).toMatchObject({
      campaignId: ids.campaign,
      zoneId: ids.zone,
      surfaceId: ids.surface,
      status: 'active',
      priority: 5,
    });
    ids.deployment = deployment.id;
    expect(
      code(await client.callTool('manage_campaigns', { action: 'deploy', campaignId: ids.campaign, zoneId: ids.zone })),
    ).toBe('conflict');
    expect(
      ok(await client.callTool('query_campaigns', { action: 'deployments', campaignId: ids.campaign })).deployments,
    ).toHaveLength(1);
    expect(
      ok(
        await client.callTool('manage_campaigns', {
          action: 'update_deployment',
          deploymentId: ids.deployment,
          deploymentStatus: 'paused',
        }),
      ).deployment.status,
    ).toBe('paused');
    const listed = ok(await client.callTool('query_campaigns', { action: 'list', status: 'published' })).campaigns;
    expect(listed.map((c: { id: string }) => c.id)).toEqual([ids.campaign]);
    expect(
      ok(await client.callTool('query_campaigns', { action: 'get', campaignId: ids.campaign })).campaign,
    ).toMatchObject({ variantCount: 2, activeDeployments: 0 });
  });

  it('refuses a deployment schedule that is not an ISO date-time, naming the field, and changes nothing', async () => {
    const refused = await client.callTool('manage_campaigns', {
      action: 'update_deployment',
      deploymentId: ids.deployment,
      startsAt: 'next tuesday',
    });
    expect(code(refused)).toBe('validation_failed');
    expect(refused.content[0]!.text).toContain('startsAt: must be an ISO 8601 date-time');
    const [deployment] = ok(
      await client.callTool('query_campaigns', { action: 'deployments', campaignId: ids.campaign }),
    ).deployments;
    expect(deployment).toMatchObject({ id: ids.deployment, startsAt: null });
  });

  it('republishes the brand site through the republish workflow after publish, deploy and variant saves', async () => {
    const connection = platform.container.orm.em.getConnection();
    type Publication = { version: number; snapshot: { campaigns: { id: string; variants: { headline: string }[] }[] } };
    const latestPublication = async () =>
      (
        await connection.execute<Publication[]>(
          `select version, snapshot from site_publications where workspace_id = ? order by version desc limit 1`,
          [tenant.workspaceId],
        )
      )[0];
    const first = await eventually(latestPublication, 'a first publication', { timeoutMs: 30_000 });
    expect(first.snapshot.campaigns.map((c) => c.id)).toEqual([ids.campaign]);
    const before = first.version;
    await client.callTool('manage_campaigns', {
      action: 'update_variant',
      variantId: ids.variant,
      headline: 'Republished headline',
    });
    const latest = await eventually(
      async () => {
        const publication = (await latestPublication())!;
        const republished = publication.snapshot.campaigns[0]!.variants.some(
          (v) => v.headline === 'Republished headline',
        );
        return republished ? publication : undefined;
      },
      'a publication with the new headline',
      { timeoutMs: 30_000 },
    );
    expect(latest.version).toBeGreaterThan(before);
    expect(latest.snapshot.campaigns[0]!.variants.map((v) => v.headline)).toContain('Republished headline');
  });

  it('deletes a variant, archives the campaign (ending its deployments) and deletes a product', async () => {
    expect(
      ok(await client.callTool('manage_campaigns', { action: 'delete_variant', variantId: ids.second })).variant.id,
    ).toBe(ids.second);
    expect(code(await client.callTool('manage_campaigns', { action: 'delete', campaignId: ids.campaign }))).toBe(
      'conflict',
    );
    const archived = ok(
      await client.callTool('manage_campaigns', { action: 'update', campaignId: ids.campaign, status: 'archived' }),
    ).campaign;
    expect(archived.status).toBe('archived');
    expect(
      ok(await client.callTool('query_campaigns', { action: 'deployments', campaignId: ids.campaign })).deployments[0]
        .status,
    ).toBe('ended');
    expect(
      code(
        await client.callTool('manage_campaigns', {
          action: 'create_variant',
          campaignId: ids.campaign,
          headline: 'x',
          body: 'y',
          callToAction: 'z',
        }),
      ),
    ).toBe('conflict');
    const draft = ok(await client.callTool('manage_campaigns', { action: 'create', name: 'Throwaway' })).campaign;
    expect(ok(await client.callTool('manage_campaigns', { action: 'delete', campaignId: draft.id })).campaign.id).toBe(
      draft.id,
    );
    expect(code(await client.callTool('query_campaigns', { action: 'get', campaignId: draft.id }))).toBe('not_found');
    ok(await client.callTool('manage_products', { action: 'delete', productId: ids.product }));
    expect(ok(await client.callTool('query_products', { action: 'list' })).products).toEqual([]);
  });

  it('brand: read defaults, merge updates section by section, refuse stale versions', async () => {
    const initial = ok(await client.callTool('query_brand', { action: 'get' })).brand;
    expect(initial).toMatchObject({ version: 0, profile: { displayName: tenant.workspaceName } });
    const voice = ok(
      await client.callTool('manage_brand', {
        action: 'update_voice',
        voice: { tone: 'warm, direct', doSay: ['linen'] },
        expectedVersion: 0,
      }),
    ).brand;
    expect(voice).toMatchObject({ version: 1, voice: { tone: 'warm, direct', doSay: ['linen'] } });
    const colours = ok(
      await client.callTool('manage_brand', {
        action: 'update_brandbook',
        brandbook: { colors: { primary: '#112233' } },
      }),
    ).brand;
    expect(colours.brandbook.colors).toMatchObject({
      primary: '#112233',
      secondary: initial.brandbook.colors.secondary,
    });
    expect(
      code(
        await client.callTool('manage_brand', {
          action: 'update_profile',
          profile: { tagline: 'x' },
          expectedVersion: 1,
        }),
      ),
    ).toBe('conflict');
    expect(
      code(
        await client.callTool('manage_brand', {
          action: 'update_brandbook',
          brandbook: { colors: { primary: 'green' } },
        }),
      ),
    ).toBe('validation_failed');
    ok(
      await client.callTool('manage_brand', {
        action: 'update_concierge',
        concierge: { greeting: 'Hi!', faq: [{ question: 'Do you ship?', answer: 'Yes, across the EU.' }] },
      }),
    );
    expect(ok(await client.callTool('query_brand', { action: 'get' })).brand).toMatchObject({
      version: 3,
      concierge: { greeting: 'Hi!' },
      voice: { tone: 'warm, direct' },
    });
  });

  it('video templates: a free, paginated catalogue', async () => {
    const all = ok(await client.callTool('query_video', { action: 'templates' }));
    expect(all.templates.length).toBeGreaterThanOrEqual(4);
    const page1 = ok(await client.callTool('query_video', { action: 'templates', limit: 2 }));
    const page2 = ok(await client.callTool('query_video', { action: 'templates', limit: 2, cursor: page1.nextCursor }));
    expect([...page1.templates, ...page2.templates].map((t: { id: string }) => t.id)).toEqual(
      all.templates.slice(0, 4).map((t: { id: string }) => t.id),
    );
    expect(
      ok(await client.callTool('query_video', { action: 'templates', aspect: '9:16' })).templates.every(
        (t: { aspect: string }) => t.aspect === '9:16',
      ),
    ).toBe(true);
  });

  it('resources: capabilities, the workspace, brand guidelines, entity templates; other ids are not found', async () => {
    const resources = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'svc://capabilities',
      `svc://org/${tenant.workspaceId}`,
      `svc://org/${tenant.workspaceId}/brand-guidelines`,
      'ui://svc/campaign-inspector@1',
    ]);
    const capabilities = JSON.parse((await client.readResource('svc://capabilities')).contents[0]!.text!);
    expect(capabilities).toMatchObject({
      workspace: { id: tenant.workspaceId, name: tenant.workspaceName },
      role: 'owner',
      profile: 'external_default',
    });
    expect(capabilities.tools.map((t: { name: string }) => t.name)).toContain('manage_campaigns');
    expect(capabilities.analytics.vocabulary.reach).toMatch(/distinct sessions/);
    expect(capabilities.analytics.experimentMethod).toMatchObject({ alpha: 0.05, minRuntimeDays: 7 });
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
      'svc://org/{id}',
      'svc://org/{id}/brand-guidelines',
      'svc://campaigns/{id}',
      'svc://products/{id}',
      'svc://surfaces/{id}',
    ]);
    const guidelines = (await client.readResource(`svc://org/${tenant.workspaceId}/brand-guidelines`)).contents[0]!;
    expect(guidelines.mimeType).toBe('text/markdown');
    expect(guidelines.text).toContain('Tone: warm, direct');
    const campaign = JSON.parse((await client.readResource(`svc://campaigns/${ids.campaign}`)).contents[0]!.text!);
    expect(campaign).toMatchObject({ campaign: { id: ids.campaign }, variants: [{ id: ids.variant }] });
    const surface = JSON.parse((await client.readResource(`svc://surfaces/${ids.surface}`)).contents[0]!.text!);
    expect(surface.zones).toHaveLength(1);
    await expect(client.readResource(`svc://products/${ids.product}`)).rejects.toThrow(/not found/i);
    await expect(client.readResource('svc://org/ws_01J00000000000000000000000')).rejects.toThrow(/not found/i);
    const widget = (await client.readResource('ui://svc/campaign-inspector@1')).contents[0]!;
    expect(widget.mimeType).toBe('text/html;profile=mcp-app');
  });

  it('prompts: multi-step recipes with the given arguments filled in; bad arguments are refused', async () => {
    const prompts = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['surface_network_planner', 'platform_onboarding']),
    );
    const onboarding = await client.getPrompt('platform_onboarding', { website: 'https://linen.example' });
    const text = onboarding.messages[0]!.content.text!;
    expect(text).toContain('`get_platform_info {"topic":"organization"}`');
    expect(text).toContain('"website":"https://linen.example"');
    expect(text.split('\n').filter((line) => /^\d+\. /.test(line)).length).toBeGreaterThanOrEqual(4);
    await expect(client.getPrompt('platform_onboarding', { website: 'not a url' })).rejects.toThrow(
      /website: must be an absolute http\(s\) URL/,
    );
    await expect(client.getPrompt('no_such_prompt')).rejects.toThrow(/Unknown prompt/);
  });
});

it('gives campaigns of the same name numbered slugs, found in one query whatever the number taken', async () => {
  const tenant = await createTenant(platform.container, { name: 'Slugs' });
  const scope = scopeOf(platform.container, tenant);
  const { campaigns } = platform.container.services;
  const slugs: string[] = [];
  for (const name of ['Summer sale', 'Summer sale', 'Summer sale', 'Summer sale 2', 'Summer salesman'])
    slugs.push((await campaigns.create(scope, { name })).slug);
  expect(slugs).toEqual(['summer-sale', 'summer-sale-2', 'summer-sale-3', 'summer-sale-2-2', 'summer-salesman']);
  // Another workspace's slugs do not count.
  const other = await createTenant(platform.container, { name: 'Slugs elsewhere' });
  expect((await campaigns.create(scopeOf(platform.container, other), { name: 'Summer sale' })).slug).toBe(
    'summer-sale',
  );
});

it('lists campaigns exactly as get shows them, with every filter', async () => {
  const tenant = await createTenant(platform.container, { name: 'List views' });
  const scope = scopeOf(platform.container, tenant);
  const { campaigns, products } = platform.container.services;
  const product = await products.create(scope, { title: 'Linen shirt', price: 40, currency: 'EUR' });
  const rich = await campaigns.create(scope, {
    name: 'Summer linen',
    objective: 'Sell shirts',
    productIds: [product.id],
    channels: ['web', 'email'],
    conversionGoals: ['purchase', 'signup'],
    startsAt: '2026-06-01T00:00:00.000Z',
    endsAt: '2026-08-31T00:00:00.000Z',
  });
  await campaigns.createVariant(scope, rich.id, { headline: 'Stay cool', body: 'Linen.', callToAction: 'Shop' });
  const plain = await campaigns.create(scope, { name: 'Winter wool' });
  await campaigns.update(scope, plain.id, { status: 'archived' });

  const listed = async (filters: Record<string, string> = {}) =>
    (await campaigns.list(scopeOf(platform.container, tenant), filters)).items;
  const richView = await campaigns.get(scope, rich.id);
  const plainView = await campaigns.get(scope, plain.id);
  expect(richView).toMatchObject({
    productIds: [product.id],
    variantCount: 1,
    conversionGoals: ['purchase', 'signup'],
  });
  expect(await listed()).toEqual([plainView, richView]);
  expect(await listed({ productId: product.id })).toEqual([richView]);
  expect(await listed({ status: 'archived' })).toEqual([plainView]);
  expect(await listed({ search: 'LINEN' })).toEqual([richView]);
  expect(await listed({ search: '100%' })).toEqual([]);
});

it('paginates campaign lists with opaque cursors: no duplicates, no gaps, a clear error for a forged cursor', async () => {
  const tenant = await createTenant(platform.container, { name: 'Pager' });
  const scope = scopeOf(platform.container, tenant);
  for (let i = 0; i < 25; i += 1) await platform.container.services.campaigns.create(scope, { name: `Campaign ${i}` });
  const client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  try {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ok(
        await client.callTool('query_campaigns', { action: 'list', limit: 10, ...(cursor ? { cursor } : {}) }),
      );
      seen.push(...page.campaigns.map((c: { id: string }) => c.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(25);
    expect(ok(await client.callTool('query_campaigns', { action: 'list' })).campaigns).toHaveLength(20);
    const forged = await client.callTool('query_campaigns', { action: 'list', cursor: 'not-a-cursor' });
    expect(code(forged)).toBe('validation_failed');
    expect(forged.content[0]!.text).toContain('Invalid cursor');
    expect(code(await client.callTool('query_campaigns', { action: 'list', limit: 101 }))).toBe('validation_failed');
  } finally {
    await client.close();
  }
});
