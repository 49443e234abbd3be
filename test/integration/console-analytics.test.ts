/**
 * The console's Analytics page and the MCP tool agree: for a workspace with 95 days of seeded traffic (two
 * campaigns, an A/B test, clicks, conversions, unanswered concierge questions), rolled up by the real rollup
 * code, every number the page prints for 7, 28 and 90 days equals the `query_analytics` answer a real MCP
 * client gets for the same window, formatted as the tool's text formats it. Each number on the page names its
 * path in the tool's answers (`data-metric`), and the test also checks that no part of the answers is missing.
 */
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { analyticsCalls, PAGE_WINDOWS } from '../../src/http/dashboard/analytics.ts';
import { dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seededRandom } from '../support/random.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const DAY_MS = 86_400_000;
const PASSWORD = 'a long enough password';

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let client: ConnectedClient;
let browser: DashboardSession;

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content.map((c) => c.text).join(' ')}`);
  return result.structuredContent as Record<string, any>;
}

/** 95 days of sessions: impressions of both campaigns' variants, some clicks and conversions, questions. */
function traffic(): SiteEvent[] {
  const random = seededRandom(23);
  const events: SiteEvent[] = [];
  const now = Date.now() - 60_000;
  const arms = [
    { campaignId: seeded.campaignId, variantId: seeded.variantId, rate: 0.03 },
    { campaignId: seeded.campaignId, variantId: seeded.secondVariantId, rate: 0.07 },
    // The draft campaign's traffic (as if it had been live a while) makes a second row of the campaigns table.
    { campaignId: seeded.draftCampaignId, variantId: seeded.draftVariantId, rate: 0.02 },
  ];
  for (let s = 0; s < 3_000; s++) {
    const sessionId = `con-${s.toString(36).padStart(10, '0')}`;
    // More traffic lately, so the windows differ in more than their length.
    const daysAgo = Math.floor(95 * random() ** 1.6);
    const at = Math.min(now, now - daysAgo * DAY_MS - Math.floor(random() * 3_600_000));
    const arm = arms[Math.floor(random() * arms.length)]!;
    const base = { workspaceId: tenant.workspaceId, sessionId, campaignId: arm.campaignId, variantId: arm.variantId };
    const views = 1 + Math.floor(random() * 3);
    for (let v = 0; v < views; v++) {
      events.push({
        ...base,
        eventId: uuidv7(),
        type: 'impression',
        occurredAt: new Date(at + v * 1000),
        zoneId: seeded.zoneId,
        surfaceId: seeded.surfaceId,
      });
    }
    if (random() < 0.15) {
      events.push({
        ...base,
        eventId: uuidv7(),
        type: 'click',
        occurredAt: new Date(at + 5000),
        zoneId: seeded.zoneId,
        surfaceId: seeded.surfaceId,
      });
    }
    if (random() < arm.rate) {
      events.push({
        ...base,
        eventId: uuidv7(),
        type: 'conversion',
        occurredAt: new Date(at + 9000),
        goal: 'purchase',
        value: 49.5,
      });
    }
    if (random() < 0.02) {
      events.push({
        eventId: uuidv7(),
        workspaceId: tenant.workspaceId,
        sessionId,
        type: 'concierge_question',
        occurredAt: new Date(at + 7000),
        properties: { query: random() < 0.5 ? 'do you ship to Norway?' : 'is the linen pre-washed?', answered: false },
      });
    }
  }
  return events;
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-analytics', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  tenant = await createTenant(platform.container, { name: 'Linen Co', password: PASSWORD });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  await acrossWorkspaces(platform.container.orm.em)
    .getConnection()
    .execute(`select analytics_ensure_partitions(current_date - 100, current_date + 2)`);
  await createSiteEventRecorder(platform.container.orm).record(traffic());
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  browser = dashboardSession(platform.urls.platform);
  const signedIn = await browser.submit('/signin', '/signin', { email: tenant.email, password: PASSWORD });
  expect(signedIn.status).toBe(302);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await platform?.close();
  await closeTestFetch();
});

/** The value at a dotted path (`snapshot.timeseries.3.reach`). */
function at(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | null)?.[key], root);
}

const unescape = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

/** Every number the page prints: its path in the answers, its raw value and what a person reads. */
function figuresOf(page: string): { path: string; value: string; shown: string }[] {
  return [...page.matchAll(/<span data-metric="([^"]+)" data-value="([^"]+)">([^<]*)<\/span>/g)].map((match) => ({
    path: unescape(match[1]!),
    value: match[2]!,
    shown: unescape(match[3]!),
  }));
}

const RATE = /(clickThroughRate|conversionRate|answerRate|\.rate|interval\.\d|chanceToBeatControl)$/;
const formatted = (path: string, value: number | null) =>
  RATE.test(path) ? (value === null ? 'n/a' : `${(value * 100).toFixed(2)}%`) : (value ?? 0).toLocaleString('en-US');

describe.each(PAGE_WINDOWS)('the analytics page for %s', (window) => {
  let page: string;
  let answers: { snapshot: Record<string, any>; cvg: Record<string, any>; insights: Record<string, any> };

  beforeAll(async () => {
    const response = await browser.request(`/w/${tenant.workspaceId}/analytics?window=${window}`);
    expect(response.status).toBe(200);
    page = response.text;
    const calls = analyticsCalls(window);
    answers = {
      snapshot: ok(await client.callTool('query_analytics', { ...calls.snapshot })).snapshot,
      cvg: ok(await client.callTool('query_analytics', { ...calls.cvg })),
      insights: ok(await client.callTool('query_analytics', { ...calls.insights })),
    };
  });

  it('prints every number exactly as query_analytics answers it over MCP', () => {
    const figures = figuresOf(page);
    expect(figures.length).toBeGreaterThan(50);
    for (const figure of figures) {
      const expected = at(answers, figure.path);
      if (figure.path.endsWith('.runtime.days')) {
        // A test's runtime grows with the clock between the page's call and the test's: the same to the second,
        // and shown in whole days.
        expect(Number(figure.value)).toBeCloseTo(expected as number, 3);
        expect(figure.shown).toBe(Math.floor(Number(figure.value)).toLocaleString('en-US'));
        continue;
      }
      expect({ path: figure.path, value: figure.value }).toEqual({
        path: figure.path,
        value: expected === null ? 'null' : String(expected),
      });
      expect({ path: figure.path, shown: figure.shown }).toEqual({
        path: figure.path,
        shown: formatted(figure.path, expected as number | null),
      });
    }
  });

  it('leaves nothing of the answers out: the summary, every day, campaign, test arm and unanswered question', () => {
    const shown = new Set(figuresOf(page).map((figure) => figure.path));
    const { snapshot, cvg } = answers;
    const expected: string[] = [];
    for (const metric of ['impressions', 'reach', 'clicks', 'clickThroughRate', 'conversions']) {
      expected.push(`snapshot.summary.${metric}`);
      snapshot.timeseries.forEach((_: unknown, i: number) => expected.push(`snapshot.timeseries.${i}.${metric}`));
      snapshot.campaigns.forEach((_: unknown, i: number) => expected.push(`snapshot.campaigns.${i}.metrics.${metric}`));
    }
    cvg.experiments.forEach((experiment: Record<string, any>, e: number) => {
      expected.push(`cvg.experiments.${e}.runtime.days`);
      for (const arm of [
        `cvg.experiments.${e}.control`,
        ...experiment.variants.map((_: unknown, v: number) => `cvg.experiments.${e}.variants.${v}`),
      ]) {
        for (const field of ['exposures', 'conversions', 'rate', 'interval.0', 'interval.1'])
          expected.push(`${arm}.${field}`);
      }
      experiment.comparisons.forEach((_: unknown, c: number) =>
        expected.push(`cvg.experiments.${e}.comparisons.${c}.chanceToBeatControl`),
      );
    });
    expected.push('snapshot.concierge.questions', 'snapshot.concierge.unanswered', 'snapshot.concierge.answerRate');
    snapshot.concierge.topUnanswered.forEach((_: unknown, i: number) =>
      expected.push(`snapshot.concierge.topUnanswered.${i}.count`),
    );
    expect(expected.filter((path) => !shown.has(path))).toEqual([]);
    // The seed makes every part non-trivial, so the comparison above compares something.
    expect(snapshot.timeseries).toHaveLength(Number.parseInt(window, 10));
    expect(snapshot.campaigns.length).toBeGreaterThanOrEqual(1);
    expect(cvg.experiments).toHaveLength(1);
    expect(snapshot.concierge.topUnanswered.length).toBeGreaterThan(0);
    expect(snapshot.summary.impressions).toBeGreaterThan(snapshot.summary.reach);
  });

  it('says each verdict and insight in words, with Impressions and Reach as separate figures', () => {
    for (const comparison of answers.cvg.experiments[0].comparisons) {
      expect(page).toContain(unescapeSafe(comparison.reason));
    }
    for (const insight of answers.insights.insights) expect(unescape(page)).toContain(insight.headline);
    expect(page).toMatch(/<dt>Impressions<\/dt>\s*<dd><span data-metric="snapshot.summary.impressions"/);
    expect(page).toMatch(/<dt>Reach<\/dt>\s*<dd><span data-metric="snapshot.summary.reach"/);
    expect(page).toMatch(new RegExp(`aria-current="page"\\s*>Last ${Number.parseInt(window, 10)} days<`));
  });
});

it('shows different numbers for different windows (the windows are really asked for)', async () => {
  const sums: number[] = [];
  for (const window of PAGE_WINDOWS) {
    const page = (await browser.request(`/w/${tenant.workspaceId}/analytics?window=${window}`)).text;
    sums.push(Number(/data-metric="snapshot.summary.impressions" data-value="(\d+)"/.exec(page)![1]));
  }
  expect(sums[0]).toBeLessThan(sums[1]!);
  expect(sums[1]).toBeLessThan(sums[2]!);
});

it('reads what its tool calls share once a page view: the experiments and the concierge questions', async () => {
  // The A/B dashboard and the insights are both built from the experiments of the same campaigns, and the
  // snapshot's concierge section and the insights' gaps from the same questions; the page shares those reads
  // (and the statistics) between its tool calls instead of doing them twice. Counted at the driver: the
  // experiments' exact totals are one statement, the questions two (totals and the most asked).
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  const totalsReads: string[] = [];
  const conciergeReads: string[] = [];
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text?.includes('from analytics_variant_totals')) totalsReads.push(text);
    if (text?.includes('from analytics_concierge_daily')) conciergeReads.push(text);
    return query.apply(this, args);
  };
  try {
    const response = await browser.request(`/w/${tenant.workspaceId}/analytics?window=7d`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('data-metric="cvg.experiments.0.');
    expect(response.text).toContain('data-metric="snapshot.concierge.questions"');
  } finally {
    client.query = query;
  }
  expect(totalsReads).toHaveLength(1);
  expect(conciergeReads).toHaveLength(2);
});

function unescapeSafe(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
