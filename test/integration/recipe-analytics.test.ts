/**
 * Recipes 2 and 3 of the spec, end to end through a real MCP client on a real platform (PostgreSQL, Temporal,
 * worker), over a fixture workspace with seeded traffic: 14 days of sessions on a published campaign with a
 * control, a clearly better variant and a clearly worse one, recorded as raw events and rolled up.
 *
 * Recipe 2: snapshot (summary first) → cvg_dashboard → proposed edits → update_variant and delete_variant on
 * approval → the republished brand site serves the edited variant and never the deleted one.
 * Recipe 3: top performer from cvg_dashboard → query_video templates → quote → render_video → query_video
 * progress to completion → a real MP4 file.
 */
import { v7 as uuidv7 } from 'uuid';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { Campaign } from '../../src/domain/campaigns/campaign.entity.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { seededRandom } from '../support/random.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { pollUntil } from '../support/poll.ts';

const DAY_MS = 86_400_000;
/** Sessions per arm and their true conversion rates: control 4 %, "better" 8 %, "worse" 1 %. */
const SESSIONS_PER_ARM = 2_500;
const RATES = { control: 0.04, better: 0.08, worse: 0.01 } as const;

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
let seeded: SeededWorkspace;
let client: ConnectedClient;
let otherClient: ConnectedClient;
let betterId: string;
let worseId: string;
let campaignSlug: string;
let siteUrl: string;
const sent = { impressions: 0, sessions: 0, conversions: 0 };
const converted: Record<string, number> = {};

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content.map((c) => c.text).join(' ')}`);
  return result.structuredContent as Record<string, any>;
}

/** Sessions spread over the last 14 days, each sees one arm 1–3 times and maybe converts later. */
function traffic(arms: Record<string, number>): SiteEvent[] {
  const random = seededRandom(2026);
  const events: SiteEvent[] = [];
  const now = Date.now() - 60_000;
  for (const [variantId, rate] of Object.entries(arms)) {
    converted[variantId] = 0;
    for (let s = 0; s < SESSIONS_PER_ARM; s++) {
      const sessionId = `${variantId.slice(-8)}-${s.toString(36).padStart(12, '0')}`;
      const firstAt = now - 14 * DAY_MS + Math.floor(random() * 13.5 * DAY_MS);
      const base = { workspaceId: tenant.workspaceId, sessionId, campaignId: seeded.campaignId, variantId };
      const views = 1 + Math.floor(random() * 3);
      for (let v = 0; v < views; v++) {
        events.push({
          ...base,
          eventId: uuidv7(),
          type: 'impression',
          occurredAt: new Date(firstAt + v * 60_000),
          zoneId: seeded.zoneId,
          surfaceId: seeded.surfaceId,
        });
      }
      sent.impressions += views;
      if (random() < rate) {
        events.push({
          ...base,
          eventId: uuidv7(),
          type: 'conversion',
          occurredAt: new Date(firstAt + 10 * 60_000),
          goal: 'purchase',
          value: 49.5,
        });
        sent.conversions += 1;
        converted[variantId]! += 1;
      }
      sent.sessions += 1;
    }
  }
  return events;
}

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: true,
    label: 'recipe-analytics',
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
  });
  tenant = await createTenant(platform.container, { name: 'Linen Co', credits: 500 });
  other = await createTenant(platform.container, { name: 'Other Co' });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  const scope = scopeOf(platform.container, tenant);
  const worse = await platform.container.services.campaigns.createVariant(scope, seeded.campaignId, {
    headline: 'Linen, again',
    body: 'More linen.',
    callToAction: 'Maybe',
  });
  betterId = seeded.secondVariantId;
  worseId = worse.id;
  const em = acrossWorkspaces(platform.container.orm.em);
  campaignSlug = (await em.findOneOrFail(Campaign, { id: seeded.campaignId })).slug;
  siteUrl = brandSiteUrl(platform.config, (await em.findOneOrFail(Workspace, { id: tenant.workspaceId })).slug);
  // The seeded traffic: recorded as the brand site records it, then rolled up by the real rollup code.
  const recorder = createSiteEventRecorder(platform.container.orm);
  await recorder.record(
    traffic({ [seeded.variantId]: RATES.control, [betterId]: RATES.better, [worseId]: RATES.worse }),
  );
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  otherClient = await connectV2(platform.urls.mcp, { 'x-api-key': other.apiKey });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await otherClient?.close();
  await platform?.close();
  await closeTestFetch();
});

/** Headlines the campaign page serves to `visitors` different first-party sessions. */
async function servedHeadlines(headlines: string[], visitors = 40): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < visitors; i++) {
    const visitor = `visitor${i.toString().padStart(15, '0')}`;
    const response = await testFetch(`${siteUrl}/campaigns/${campaignSlug}`, {
      headers: { accept: 'text/markdown', cookie: `cp_vid=${visitor}` },
    });
    const text = await response.text();
    for (const headline of headlines) if (text.includes(headline)) seen.add(headline);
  }
  return seen;
}

describe('recipe 2: recurring report with a human in the loop', () => {
  let dashboard: Record<string, any>;

  test('step 1: the summary snapshot reports Impressions and Reach apart, exact and within 2%', async () => {
    const { snapshot } = ok(await client.callTool('query_analytics', { action: 'snapshot', sections: ['summary'] }));
    expect(snapshot.sections).toEqual(['summary']);
    expect(snapshot.campaigns).toBeUndefined();
    expect(snapshot.window).toMatchObject({ window: '7d', days: 7 });
    // The whole 14 days: the 28-day window covers every seeded event.
    const wide = ok(await client.callTool('query_analytics', { action: 'snapshot', window: '28d' })).snapshot;
    expect(wide.summary.impressions).toBe(sent.impressions);
    expect(wide.summary.conversions).toBe(sent.conversions);
    expect(wide.summary.reach).toBeLessThanOrEqual(wide.summary.impressions);
    expect(Math.abs(wide.summary.reach - sent.sessions) / sent.sessions).toBeLessThan(0.02);
    expect(wide.summary.smallSample).toBe(false);
    expect(wide.freshness.dataThrough).not.toBeNull();
  });

  test('widening: campaigns, variants, surfaces, timeseries and concierge sections on request', async () => {
    const { snapshot } = ok(
      await client.callTool('query_analytics', {
        action: 'snapshot',
        window: '28d',
        sections: ['campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'],
      }),
    );
    expect(snapshot.summary).toBeUndefined();
    expect(snapshot.campaigns).toHaveLength(1);
    expect(snapshot.campaigns[0]).toMatchObject({ campaignId: seeded.campaignId, name: 'Linen summer' });
    expect(snapshot.campaigns[0].metrics.convertedSessions).toBe(sent.conversions);
    const byVariant = new Map(snapshot.variants.map((row: any) => [row.variantId, row]));
    for (const variantId of [seeded.variantId, betterId, worseId]) {
      expect((byVariant.get(variantId) as any).metrics.convertedSessions).toBe(converted[variantId]);
    }
    expect(snapshot.surfaces[0]).toMatchObject({ surfaceId: seeded.surfaceId, name: 'Linen home' });
    expect(snapshot.surfaces[0].zones[0]).toMatchObject({ zoneId: seeded.zoneId, key: 'hero' });
    expect(snapshot.timeseries).toHaveLength(28);
    expect(snapshot.timeseries.reduce((sum: number, day: any) => sum + day.impressions, 0)).toBe(sent.impressions);
    expect(snapshot.concierge).toMatchObject({ questions: 0, unanswered: 0, topUnanswered: [] });
  });

  test('step 2: cvg_dashboard states the method and finds the winner and the loser against control', async () => {
    dashboard = ok(
      await client.callTool('query_analytics', { action: 'cvg_dashboard', campaignId: seeded.campaignId }),
    );
    expect(dashboard.method.decision).toMatch(/Holm-adjusted always-valid p-value/);
    expect(dashboard.method.bayesian).toMatch(/Beta-Binomial/);
    const [experiment] = dashboard.experiments;
    expect(experiment.control).toMatchObject({ variantId: seeded.variantId, exposures: SESSIONS_PER_ARM });
    expect(experiment.srm.mismatch).toBe(false);
    expect(experiment.runtime.days).toBeGreaterThanOrEqual(experiment.runtime.minDays);
    const decisions = Object.fromEntries(
      experiment.comparisons.map((comparison: any) => [comparison.variantId, comparison]),
    ) as Record<string, any>;
    expect(decisions[betterId]).toMatchObject({ decision: 'winner' });
    expect(decisions[betterId].chanceToBeatControl).toBeGreaterThan(0.99);
    expect(decisions[worseId]).toMatchObject({ decision: 'loser' });
    expect(decisions[worseId].variant.conversions).toBe(converted[worseId]);
    expect(experiment.topPerformer).toMatchObject({ variantId: betterId, why: 'declared winner against control' });
    // A second look cannot flip the result back: the running minimum p-value is kept.
    const again = ok(
      await client.callTool('query_analytics', { action: 'cvg_dashboard', campaignId: seeded.campaignId }),
    );
    expect(again.experiments[0].comparisons.map((c: any) => c.decision)).toEqual(
      experiment.comparisons.map((c: any) => c.decision),
    );
  });

  test('step 3: insights give at most one finding per campaign, the winner', async () => {
    const { insights } = ok(await client.callTool('query_analytics', { action: 'insights', window: '28d' }));
    const forCampaign = insights.filter((insight: any) => insight.campaignId === seeded.campaignId);
    expect(forCampaign).toHaveLength(1);
    expect(forCampaign[0]).toMatchObject({ kind: 'winner_found', severity: 'high' });
    const ab = ok(await client.callTool('query_analytics', { action: 'ab_test', campaignId: seeded.campaignId }));
    expect(ab.experiments[0].variants.map((arm: any) => arm.variantId).sort()).toEqual([betterId, worseId].sort());
    expect(ab.experiments[0].srm).toMatchObject({ mismatch: false });
    expect(ab.method.srm).toMatch(/chi-square/);
  });

  test('the analytics_deep_dive prompt follows the recipe', async () => {
    const prompt = await client.getPrompt('analytics_deep_dive', { window: '28d' });
    const text = prompt.messages.map((message: any) => message.content.text).join('\n');
    expect(text).toContain('"action":"snapshot"');
    expect(text).toContain('"sections":["summary"]');
    expect(text).toContain('"action":"cvg_dashboard"');
    expect(text).toMatch(/apply nothing until the user explicitly approves/);
  });

  test('steps 4–5: on approval, update_variant and delete_variant; the brand site serves the result', async () => {
    // The proposal an agent shows (diff-style), approved by the user in this scenario.
    const proposal = [
      `- "Linen, again" (${worseId}): delete`,
      `~ "Feel light" (${betterId}): headline → "Feel light all summer"`,
    ];
    expect(proposal).toHaveLength(2);
    const before = await servedHeadlines(['Stay cool', 'Feel light', 'Linen, again']);
    expect(before.has('Linen, again')).toBe(true);
    ok(
      await client.callTool('manage_campaigns', {
        action: 'update_variant',
        variantId: betterId,
        headline: 'Feel light all summer',
      }),
    );
    ok(await client.callTool('manage_campaigns', { action: 'delete_variant', variantId: worseId }));
    const served = await pollUntil(
      () => servedHeadlines(['Stay cool', 'Feel light all summer', 'Linen, again']),
      (headlines) => headlines.has('Feel light all summer') && !headlines.has('Linen, again'),
      { timeoutMs: 20_000, intervalMs: 200, timeoutMessage: 'the republished page never served the edited variants' },
    );
    expect(served.has('Feel light all summer')).toBe(true);
    expect(served.has('Stay cool')).toBe(true);
    expect(served.has('Linen, again')).toBe(false);
    // The deleted variant leaves the comparison but keeps its data.
    const after = ok(
      await client.callTool('query_analytics', { action: 'cvg_dashboard', campaignId: seeded.campaignId }),
    );
    expect(after.experiments[0].excludedVariants).toEqual([
      { variantId: worseId, name: expect.any(String), reason: 'deleted' },
    ]);
  }, 120_000);
});

describe('recipe 3: video from the top performer', () => {
  test('cvg_dashboard → templates → quote → render_video → progress → a real MP4', async () => {
    const dashboard = ok(await client.callTool('query_analytics', { action: 'cvg_dashboard' }));
    const top = dashboard.experiments.find((e: any) => e.campaignId === seeded.campaignId).topPerformer;
    expect(top.variantId).toBe(betterId);
    const { templates } = ok(await client.callTool('query_video', { action: 'templates' }));
    expect(templates.length).toBeGreaterThan(0);
    const args = {
      mode: 'video',
      templateId: templates[0].id,
      campaignId: seeded.campaignId,
      variantId: top.variantId,
    };
    const quoted = ok(await client.callTool('render_video', args));
    expect(quoted.status).toBe('quote_required');
    expect(quoted.quote.credits).toBeGreaterThan(0);
    const started = ok(await client.callTool('render_video', { ...args, quoteId: quoted.quote.id }));
    expect(started.status).toBe('started');
    const jobId = started.render.jobId as string;
    const render: Record<string, any> = await pollUntil(
      async () => ok(await client.callTool('query_video', { action: 'progress', jobId })).render,
      (current) => !['queued', 'rendering', 'cancelling'].includes(current.status),
      { timeoutMs: 150_000, intervalMs: 250, timeoutMessage: `render ${jobId} did not finish` },
    );
    expect(render.status).toBe('complete');
    const file = await testFetch(render.output.url);
    expect(file.status).toBe(200);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBe(render.output.bytes);
  }, 180_000);
});

describe('bad input and isolation', () => {
  test('an unknown section or window is a clear error', async () => {
    const badSection = await client.callTool('query_analytics', { action: 'snapshot', sections: ['sales'] });
    expect(badSection.isError).toBe(true);
    expect(badSection.content[0]!.text).toMatch(/sections/);
    const badWindow = await client.callTool('query_analytics', { action: 'snapshot', window: '5y' });
    expect(badWindow.isError).toBe(true);
    expect(badWindow.content[0]!.text).toMatch(/window/);
  });

  test("another workspace sees none of this traffic and cannot name this workspace's campaign", async () => {
    const { snapshot } = ok(await otherClient.callTool('query_analytics', { action: 'snapshot', window: '90d' }));
    expect(snapshot.summary).toMatchObject({ impressions: 0, reach: 0, conversions: 0, smallSample: true });
    const foreign = await otherClient.callTool('query_analytics', {
      action: 'cvg_dashboard',
      campaignId: seeded.campaignId,
    });
    expect(foreign.isError).toBe(true);
    expect(foreign.content[0]!.text).toMatch(/not found/);
  });
});
