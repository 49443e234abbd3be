/**
 * `query_analytics insights` and the concierge section on a real platform: each kind of finding is produced by
 * traffic that should produce it, and never more than one per campaign.
 *
 * - "Split": two variants with equal weights but 1,000 vs 1,250 exposed sessions → SRM warning (and only that).
 * - "Quiet": published with two variants and no traffic for 7 days → stalled.
 * - "Young": two variants with 40 sessions each → needs traffic.
 * - "Solo": published with one variant and no traffic → stalled.
 * - Five unanswered concierge questions (three the same, differently cased) and two answered → one
 *   workspace-level concierge_gaps finding, with the repeated question first.
 */
import { v7 as uuidv7 } from 'uuid';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf } from '../support/seed.ts';

const HOUR_MS = 3_600_000;

let platform: TestPlatform;
let tenant: Tenant;
let client: ConnectedClient;
const campaigns: Record<string, { id: string; variants: string[] }> = {};

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content.map((c) => c.text).join(' ')}`);
  return result.structuredContent as Record<string, any>;
}

async function campaign(name: string, variants: number): Promise<void> {
  const scope = scopeOf(platform.container, tenant);
  const { campaigns: service } = platform.container.services;
  const created = await service.create(scope, { name, objective: 'Sell' });
  const ids: string[] = [];
  for (let i = 0; i < variants; i++) {
    ids.push(
      (await service.createVariant(scope, created.id, { headline: `${name} ${i}`, body: 'Body', callToAction: 'Go' }))
        .id,
    );
  }
  await service.publish(scope, created.id);
  campaigns[name] = { id: created.id, variants: ids };
}

function sessions(name: string, variantIndex: number, count: number, convertEvery = 0): SiteEvent[] {
  const { id, variants } = campaigns[name]!;
  const events: SiteEvent[] = [];
  const at = new Date(Date.now() - 2 * HOUR_MS);
  for (let s = 0; s < count; s++) {
    const base = {
      workspaceId: tenant.workspaceId,
      sessionId: `${name}-${variantIndex}-${s}`,
      campaignId: id,
      variantId: variants[variantIndex]!,
    };
    events.push({ ...base, eventId: uuidv7(), type: 'impression', occurredAt: at });
    if (convertEvery && s % convertEvery === 0) {
      events.push({
        ...base,
        eventId: uuidv7(),
        type: 'conversion',
        occurredAt: new Date(at.getTime() + 1000),
        goal: 'buy',
      });
    }
  }
  return events;
}

function question(query: string, answered: boolean): SiteEvent {
  return {
    eventId: uuidv7(),
    workspaceId: tenant.workspaceId,
    type: 'concierge_question',
    occurredAt: new Date(Date.now() - HOUR_MS),
    sessionId: null,
    properties: { query, answered },
  };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'insights' });
  tenant = await createTenant(platform.container, { name: 'Insight Co' });
  await campaign('Split', 2);
  await campaign('Quiet', 2);
  await campaign('Young', 2);
  await campaign('Solo', 1);
  await createSiteEventRecorder(platform.container.orm).record([
    ...sessions('Split', 0, 1_000, 20),
    ...sessions('Split', 1, 1_250, 20),
    ...sessions('Young', 0, 40, 10),
    ...sessions('Young', 1, 40, 10),
    question('Do you ship to Norway?', false),
    question('do you ship to norway? ', false),
    question('Do you ship to Norway?', false),
    question('Is there a student discount?', false),
    question('Can I pay with crypto?', false),
    question('What is linen?', true),
    question('How do I wash it?', true),
  ]);
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await platform?.close();
  await closeTestFetch();
});

test('one finding per campaign, of the kind its traffic calls for, most severe first', async () => {
  const { insights } = ok(await client.callTool('query_analytics', { action: 'insights' }));
  const byCampaign = new Map<string | null, any[]>();
  for (const insight of insights)
    byCampaign.set(insight.campaignId, [...(byCampaign.get(insight.campaignId) ?? []), insight]);
  for (const found of byCampaign.values()) expect(found).toHaveLength(1);
  const kindOf = (name: string) => byCampaign.get(campaigns[name]!.id)?.[0]?.kind;
  expect(kindOf('Split')).toBe('srm_warning');
  expect(kindOf('Quiet')).toBe('stalled');
  expect(kindOf('Young')).toBe('needs_traffic');
  expect(kindOf('Solo')).toBe('stalled');
  const gaps = byCampaign.get(null)![0];
  expect(gaps).toMatchObject({ kind: 'concierge_gaps', campaignId: null });
  expect(gaps.headline).toMatch(/^5 visitor question/);
  expect(gaps.detail).toMatch(/^Most asked: "(D|d)o you ship to (N|n)orway\?.*" \(3×\)/);
  const severities = insights.map((insight: any) => insight.severity);
  const rank = { high: 0, medium: 1, low: 2 } as Record<string, number>;
  expect(severities.map((s: string) => rank[s])).toEqual([...severities.map((s: string) => rank[s])].sort());
  expect(insights[0].kind).toBe('srm_warning');
});

test('a campaign filter gives only that campaign and no workspace-level finding', async () => {
  const { insights } = ok(
    await client.callTool('query_analytics', { action: 'insights', campaignId: campaigns.Young!.id }),
  );
  expect(insights).toEqual([expect.objectContaining({ kind: 'needs_traffic', campaignId: campaigns.Young!.id })]);
});

test('the SRM experiment is reported inconclusive by cvg_dashboard, never a winner', async () => {
  const dashboard = ok(
    await client.callTool('query_analytics', { action: 'cvg_dashboard', campaignId: campaigns.Split!.id }),
  );
  const [experiment] = dashboard.experiments;
  expect(experiment.srm.mismatch).toBe(true);
  expect(experiment.srm.pValue).toBeLessThan(0.001);
  expect(experiment.comparisons[0]).toMatchObject({ decision: 'inconclusive' });
  expect(experiment.comparisons[0].reason).toMatch(/sample ratio/i);
});

test('the concierge section counts questions and lists the unanswered ones, most asked first', async () => {
  const { snapshot } = ok(
    await client.callTool('query_analytics', { action: 'snapshot', sections: ['concierge', 'summary'] }),
  );
  expect(snapshot.concierge).toMatchObject({ questions: 7, unanswered: 5 });
  expect(snapshot.concierge.answerRate).toBeCloseTo(2 / 7, 4);
  expect(snapshot.concierge.topUnanswered[0]).toMatchObject({ count: 3 });
  expect(snapshot.concierge.topUnanswered).toHaveLength(3);
  expect(snapshot.summary.conciergeQuestions).toBe(7);
});

test('a look that does not lower a variant’s smallest p-value writes nothing; one that does lowers it', async () => {
  // A clear difference, so the sequential p-value is below 1 and a stored minimum can sit above it.
  await campaign('Looks', 2);
  await createSiteEventRecorder(platform.container.orm).record([
    ...sessions('Looks', 0, 600, 12),
    ...sessions('Looks', 1, 600, 3),
  ]);
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  const campaignId = campaigns.Looks!.id;
  const stored = async () => {
    const rows = await platform.container.orm.em
      .getConnection()
      .execute<{ min_p_value: number; looks: number; updated_at: Date }[]>(
        'select min_p_value, looks, updated_at from analytics_experiment_looks where campaign_id = ?',
        [campaignId],
      );
    expect(rows).toHaveLength(1);
    return { ...rows[0]!, min_p_value: Number(rows[0]!.min_p_value) };
  };
  const look = async () =>
    ok(await client.callTool('query_analytics', { action: 'cvg_dashboard', campaignId })).experiments[0].comparisons[0];
  const first = await look();
  const before = await stored();
  expect(first.sequential.pValue).toBeLessThan(0.5);
  expect(before.min_p_value).toBeCloseTo(first.sequential.pValue, 12);
  // The same totals looked at again (a dashboard polled): the same p-value, nothing written.
  await look();
  await look();
  expect(await stored()).toEqual(before);
  // A stored minimum above this look's p-value is lowered to it, and the look is counted.
  await platform.container.orm.em
    .getConnection()
    .execute('update analytics_experiment_looks set min_p_value = 1 where campaign_id = ?', [campaignId]);
  await look();
  const after = await stored();
  expect(after.min_p_value).toBeCloseTo(first.sequential.pValue, 12);
  expect(after.looks).toBe(before.looks + 1);
});

test('the snapshot names the campaigns and variants it lists, their status, the control, and a deleted variant', async () => {
  const scope = scopeOf(platform.container, tenant);
  const { campaigns: service } = platform.container.services;
  const young = campaigns['Young']!;
  const read = async () =>
    ok(await client.callTool('query_analytics', { action: 'snapshot', sections: ['campaigns', 'variants'] })).snapshot;
  const before = await read();
  // Every campaign with traffic (the others in this file add some), by its name and status.
  expect(before.campaigns.map((row: any) => [row.name, row.status])).toEqual(
    expect.arrayContaining([
      ['Split', 'published'],
      ['Young', 'published'],
    ]),
  );
  const youngVariants = before.variants.filter((row: any) => row.campaignId === young.id);
  const names = await platform.container.orm.em
    .getConnection()
    .execute<{ id: string; name: string; is_control: boolean }[]>(
      'select id, name, is_control from variants where campaign_id = ?',
      [young.id],
    );
  expect(youngVariants.map((row: any) => [row.variantId, row.name, row.isControl]).sort()).toEqual(
    names.map((row) => [row.id, row.name, row.is_control]).sort(),
  );
  expect(youngVariants.every((row: any) => row.status === 'active')).toBe(true);
  await service.deleteVariant(scope, young.variants[1]!);
  const after = await read();
  const deleted = after.variants.find((row: any) => row.variantId === young.variants[1]);
  expect(deleted).toMatchObject({ status: 'deleted', metrics: { impressions: 40 } });
});

test('cvg_dashboard pages through every campaign once, newest first, with its cursor', async () => {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const answer = ok(
      await client.callTool('query_analytics', { action: 'cvg_dashboard', limit: 1, ...(cursor ? { cursor } : {}) }),
    );
    const ids = [...answer.experiments, ...answer.notExperiments].map((row: { campaignId: string }) => row.campaignId);
    expect(ids).toHaveLength(1);
    seen.push(...ids);
    cursor = answer.nextCursor ?? undefined;
    if (!cursor) break;
  }
  // Every campaign of the workspace (those of beforeAll and any a test above added), newest first, as the
  // campaign list orders them.
  const listed = ok(await client.callTool('query_campaigns', { action: 'list', limit: 100 }));
  expect(seen).toEqual(listed.campaigns.map((row: { id: string }) => row.id));
  expect(seen.slice(-4)).toEqual(['Solo', 'Young', 'Quiet', 'Split'].map((name) => campaigns[name]!.id));
});
