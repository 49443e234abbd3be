/**
 * Invariants of the tool catalogue, checked on the compiled catalogue the server answers from (no database):
 * the default profile's tool set, the read-only rule, explicit annotations, flat input schemas, a permission
 * for every action, and selectors that match the actions.
 */
import type { z } from 'zod';
import { PERMISSIONS } from '../../src/auth/permissions.ts';
import { CHANNEL_TOOLS, DEFAULT_TOOLS, PROFILES, SELECTABLE_PROFILES } from '../../src/mcp/profiles.ts';
import { getPrompt, PROMPTS } from '../../src/mcp/prompts.ts';
import { ALL_TOOLS, CATALOGUE } from '../../src/mcp/registry.ts';

const listing = (profile: string) => CATALOGUE.get(profile)!.listing;

describe('the default profile', () => {
  it('shows exactly the spec tools that exist, in the spec order, and nothing else', () => {
    expect(DEFAULT_TOOLS).toHaveLength(15);
    expect(listing('external_default').map((t) => t.name)).toEqual(DEFAULT_TOOLS);
    expect(ALL_TOOLS.map((tool) => tool.name).sort()).toEqual([...DEFAULT_TOOLS, ...CHANNEL_TOOLS].sort());
  });

  it('names only spec tools and channel tools in every profile', () => {
    for (const profile of PROFILES) {
      for (const name of profile.tools) expect([...DEFAULT_TOOLS, ...CHANNEL_TOOLS]).toContain(name);
    }
  });
});

describe('the channel profiles', () => {
  const CAMPAIGN_READS_ANALYTICS_INFO = ['query_campaigns', 'query_analytics', 'get_platform_info'];

  it('show a network’s two tools plus campaign reads, analytics and platform info', () => {
    expect(CHANNEL_TOOLS).toEqual([
      'query_bluesky',
      'manage_bluesky',
      'query_meta',
      'manage_meta',
      'query_reddit',
      'manage_reddit',
      'query_tiktok',
      'manage_tiktok',
    ]);
    // Each profile shows its own network's tools and no other network's.
    for (const network of ['bluesky', 'meta', 'reddit', 'tiktok']) {
      expect(listing(`${network}_ops`).map((t) => t.name)).toEqual([
        `query_${network}`,
        `manage_${network}`,
        ...CAMPAIGN_READS_ANALYTICS_INFO,
      ]);
    }
  });

  it('leave the default profile at the 15 spec tools and show every tool to autonomous_ops', () => {
    expect(listing('external_default').map((t) => t.name)).toEqual(DEFAULT_TOOLS);
    expect(listing('autonomous_ops').map((t) => t.name)).toEqual([...DEFAULT_TOOLS, ...CHANNEL_TOOLS]);
  });

  it('keeps the discovery profile minimal and every other profile behind a call code', () => {
    expect(listing('discovery').map((t) => t.name)).toEqual(['get_platform_info']);
    expect([...SELECTABLE_PROFILES].sort()).toEqual(
      [
        'ai_studio_ops',
        'analytics_read',
        'autonomous_ops',
        'bluesky_ops',
        'campaign_ops',
        'meta_ops',
        'reddit_ops',
        'tiktok_ops',
        'video_ops',
      ].sort(),
    );
  });
});

describe.each(ALL_TOOLS.map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
  const compiled = CATALOGUE.get('autonomous_ops')!.tools.get(name)!;

  it('sets all four hints explicitly; readOnlyHint exactly for query_* and get_platform_info', () => {
    const { annotations } = compiled.listing;
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      expect(typeof annotations?.[hint]).toBe('boolean');
    }
    expect(annotations?.readOnlyHint).toBe(name.startsWith('query_') || name === 'get_platform_info');
    if (annotations?.readOnlyHint) expect(annotations.destructiveHint).toBe(false);
    // manage_products reaches the open web; generation and films may call an external model provider; a
    // channel's manage tool publishes to its social network.
    expect(annotations?.openWorldHint).toBe(
      [
        'manage_products',
        'generate_campaign',
        'video_commission',
        'manage_bluesky',
        'manage_meta',
        'manage_reddit',
        'manage_tiktok',
      ].includes(name),
    );
  });

  it('advertises a flat object input: no top-level union, unknown arguments refused, the selector required', () => {
    const schema = compiled.listing.inputSchema as Record<string, unknown>;
    expect(schema.type).toBe('object');
    expect(schema).not.toHaveProperty('anyOf');
    expect(schema).not.toHaveProperty('oneOf');
    expect(schema).not.toHaveProperty('allOf');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual([tool.selector]);
    const selector = (schema.properties as Record<string, { enum?: string[] }>)[tool.selector];
    expect(selector?.enum?.sort()).toEqual(Object.keys(tool.actions).sort());
  });

  it('gives every action a known permission and advertises every field the action reads', () => {
    const advertised = Object.keys(tool.input.shape);
    for (const [value, action] of Object.entries(tool.actions)) {
      expect(PERMISSIONS).toContain(action.permission);
      const shape = (action.input as unknown as z.ZodObject).shape;
      expect({ action: value, fields: Object.keys(shape).filter((field) => !advertised.includes(field)) }).toEqual({
        action: value,
        fields: [],
      });
      if (tool.annotations.readOnlyHint) expect(action.permission).toBe('workspace:read');
    }
  });

  it('describes itself for agents: a description, one line per public action, an object output schema', () => {
    expect(compiled.listing.description!.length).toBeGreaterThan(80);
    for (const [value, action] of Object.entries(tool.actions)) {
      if (action.internalOnly) expect(compiled.listing.description).not.toContain(`${tool.selector}=${value}:`);
      else expect(compiled.listing.description).toContain(`${tool.selector}=${value}: ${action.summary}`);
    }
    expect((compiled.listing.outputSchema as Record<string, unknown>).type).toBe('object');
  });
});

describe('deprecated read actions (spec rule C1)', () => {
  it('exist exactly on manage_brand, manage_surfaces and video_commission, each naming its query_* tool', () => {
    const deprecated = ALL_TOOLS.flatMap((tool) =>
      Object.entries(tool.actions)
        .filter(([, action]) => action.internalOnly)
        .map(([value, action]) => `${tool.name}.${value}->${action.internalOnly!.useInstead}`),
    );
    expect(deprecated.sort()).toEqual(
      [
        'manage_brand.get->query_brand',
        'manage_surfaces.get_surface->query_surfaces',
        'manage_surfaces.list_surfaces->query_surfaces',
        'manage_surfaces.list_zones->query_surfaces',
        'video_commission.get->query_video_commissions',
        'video_commission.list->query_video_commissions',
      ].sort(),
    );
  });
});

describe('prompts', () => {
  it('are the six of the spec, each naming only spec tools', () => {
    expect(PROMPTS.map((p) => p.name)).toEqual([
      'campaign_brief',
      'analytics_deep_dive',
      'surface_network_planner',
      'content_optimizer',
      'ai_studio_image_workflow',
      'platform_onboarding',
    ]);
    for (const prompt of PROMPTS) for (const tool of prompt.tools) expect(DEFAULT_TOOLS).toContain(tool);
  });

  it('name in their recipe every tool they declare, with JSON arguments', () => {
    for (const prompt of PROMPTS) {
      const args = Object.fromEntries(
        prompt.arguments
          .filter((a) => a.required)
          .map((a) => [a.name, a.name === 'campaignId' ? 'cmp_01JA0000000000000000000000' : 'x']),
      );
      const recipe = prompt.recipe(args);
      for (const tool of prompt.tools) expect(recipe).toContain(`\`${tool} {`);
    }
  });

  it('check ids, URLs and channels with the domain’s schemas, trimming what a person typed around an id', () => {
    const brief = PROMPTS.find((p) => p.name === 'campaign_brief')!;
    const text = getPrompt(brief, { goal: 'Sell linen', productId: '  prd_01JA0000000000000000000000 ' }).messages[0]!
      .content.text;
    expect(text).toContain('"productId":"prd_01JA0000000000000000000000"');
    expect(() => getPrompt(brief, { goal: 'Sell linen', productId: 'cmp_01JA0000000000000000000000' })).toThrow(
      'Invalid arguments for prompt campaign_brief: productId: must be a product id (prd_…)',
    );
    expect(() =>
      getPrompt(brief, { goal: 'Sell linen', productUrl: `https://shop.example/${'p'.repeat(2048)}` }),
    ).toThrow('productUrl: must be at most 2048 characters');
    // The channel list is the campaigns' own.
    expect(getPrompt(brief, { goal: 'g', channels: 'web , email,social' }).messages[0]!.content.text).toContain(
      '"channels":["web","email","social"]',
    );
    expect(() => getPrompt(brief, { goal: 'g', channels: 'web,fax' })).toThrow(
      'channels: must be a comma-separated list of web, email, social',
    );
  });
});
