import { z } from 'zod';
import { ANALYTICS_WINDOWS, SNAPSHOT_SECTIONS } from '../../domain/analytics/analytics-window.ts';
import type { ExperimentView } from '../../domain/analytics/experiments.ts';
import { topPerformer } from '../../domain/analytics/experiments.ts';
import type { Metrics } from '../../domain/analytics/analytics-reader.ts';
import { CHANNEL_METRICS } from '../../domain/channels/channel-networks.ts';
import type { ChannelComparison, ChannelsSection } from '../../domain/channels/channel-reports.ts';
import { count as counted } from '../../views/count.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { Ids, NextCursor, Paging } from '../schemas.ts';

const ACTIONS = ['snapshot', 'ab_test', 'cvg_dashboard', 'insights'] as const;

const Window = z.enum(ANALYTICS_WINDOWS);
const Sections = z.array(z.enum(SNAPSHOT_SECTIONS)).min(1).max(SNAPSHOT_SECTIONS.length);

const count = (n: number) => n.toLocaleString('en-US');
const pct = (rate: number | null) => (rate === null ? 'n/a' : `${(rate * 100).toFixed(2)}%`);

/** One line an agent can quote: Impressions and Reach always apart, small samples said out loud. */
function describeMetrics(label: string, m: Metrics): string {
  return (
    `${label}: ${count(m.impressions)} impressions, reach ${count(m.reach)} sessions, ${count(m.clicks)} clicks ` +
    `(CTR ${pct(m.clickThroughRate)}), ${count(m.conversions)} conversions` +
    (m.convertedSessions ? `, ${count(m.convertedSessions)} converted sessions (${pct(m.conversionRate)})` : '') +
    (m.smallSample ? ' — small sample, treat rates as anecdotal' : '')
  );
}

/** A network's figures in one phrase; an unknown measure is named as unknown, never as 0. */
function describeChannel(row: ChannelsSection['networks'][number]): string {
  const known = CHANNEL_METRICS.filter((name) => row.metrics[name] !== null).map(
    (name) => `${count(row.metrics[name]!)} ${name}`,
  );
  const unknown = CHANNEL_METRICS.filter((name) => row.metrics[name] === null);
  return (
    `${row.name}: ${counted(row.posts, 'post')}, ${known.join(', ') || 'no engagement measured'}` +
    (unknown.length ? ` (${unknown.join(', ')} unknown)` : '') +
    `, ${count(row.clicks)} link visits, ${count(row.conversions)} conversions`
  );
}

function describeComparison(comparisons: ChannelComparison[], arms: ExperimentView['control'][]): string[] {
  return comparisons.map(
    (comparison) =>
      `  on ${comparison.name}: ` +
      comparison.variants
        .map((variant) => {
          const arm = arms.find((candidate) => candidate.variantId === variant.variantId);
          return `"${arm?.name ?? variant.variantId}" ${count(variant.engagement)} engagements, ${count(variant.clicks)} link visits, ${count(variant.conversions)} conversions (${counted(variant.posts, 'post')})`;
        })
        .join('; '),
  );
}

function describeExperiment(experiment: ExperimentView, withDecisions: boolean): string {
  const lines = [
    `"${experiment.campaignName}" (${experiment.campaignId}), ${experiment.runtimeDays} days` +
      (experiment.srm.mismatch ? `, SAMPLE RATIO MISMATCH (p = ${experiment.srm.pValue.toExponential(2)})` : ''),
  ];
  const arms = [experiment.control, ...experiment.variants];
  for (const arm of arms) {
    const verdict = experiment.verdict.variants.find((variant) => variant.variantId === arm.variantId);
    lines.push(
      `  ${arm.isControl ? 'control' : 'variant'} "${arm.name}" (${arm.variantId}): ${count(arm.conversions)}/${count(arm.exposures)} sessions = ${pct(arm.rate)} [${pct(arm.interval[0])}, ${pct(arm.interval[1])}]` +
        (arm.smallSample ? ' small sample' : '') +
        (withDecisions && verdict
          ? ` → ${verdict.decision}: chance to beat control ${pct(verdict.chanceToBeatControl)}, adjusted p ${verdict.sequential.adjustedPValue.toPrecision(2)}. ${verdict.reason}`
          : ''),
    );
  }
  if (withDecisions) {
    const top = topPerformer(experiment);
    if (top) lines.push(`  top performer: "${top.name}" (${top.variantId}), ${top.why}`);
  }
  return lines.join('\n');
}

const experimentInput = {
  campaignId: Ids.campaign.optional(),
  ...Paging,
};

export default defineTool({
  name: 'query_analytics',
  toolset: 'analytics',
  description: [
    'Read campaign performance. Read-only and free. Impressions (raw deliveries) and Reach (distinct sessions)',
    'are separate measures: always report both, never one as the other. Start with action snapshot and',
    'sections ["summary"] (the default); widen with campaigns, variants, surfaces, timeseries or concierge only',
    'where the summary shows something to explain. The channels section gives social-network engagement per network,',
    'campaign, variant and post (a measure a network lacks is null: unknown, not 0); it is never part of Impressions or Reach. cvg_dashboard gives per-variant performance against the',
    'control and a decision per variant (winner, loser, keep_running, inconclusive) by a stated method that',
    'stays valid however often it is polled; do not call a variant a winner unless the dashboard does.',
    'ab_test gives the raw experiment read-out (exposures, conversions, intervals, sample-ratio check).',
    'insights gives at most one finding per campaign. Numbers flagged smallSample are anecdotal: say so.',
    'Propose changes as a diff-style list and apply nothing (update_variant, delete_variant) before the user approves.',
  ].join(' '),
  annotations: {
    title: 'Query analytics',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z.enum(ACTIONS).describe(ACTIONS.join(' | ')),
    sections: Sections.optional().describe(
      `snapshot: which sections (default ["summary"]): ${SNAPSHOT_SECTIONS.join(', ')}.`,
    ),
    window: Window.optional().describe(
      'snapshot, insights: last N UTC days including today (default 7d). Experiments (ab_test, cvg_dashboard) always cover their whole runtime.',
    ),
    campaignId: Ids.campaign
      .optional()
      .describe('Only this campaign (all actions). Without it: the whole workspace, experiments newest first.'),
    ...Paging,
  }),
  output: z.looseObject({
    action: z.enum(ACTIONS),
    snapshot: z.looseObject({}).optional(),
    experiments: z.array(z.looseObject({})).optional(),
    notExperiments: z.array(z.looseObject({})).optional(),
    method: z.looseObject({}).optional(),
    insights: z.array(z.looseObject({})).optional(),
    nextCursor: NextCursor,
  }),
  actions: {
    snapshot: defineAction({
      summary:
        'Impressions, Reach, clicks, conversions for a window; sections summary (default), campaigns, variants, surfaces, timeseries, concierge, channels.',
      permission: 'workspace:read',
      input: z.object({
        action: z.literal('snapshot'),
        sections: Sections.optional(),
        window: Window.optional(),
        campaignId: Ids.campaign.optional(),
        limit: Paging.limit,
      }),
      async run(ctx, args) {
        const snapshot = await ctx.services.analytics.snapshot(ctx.scope, args);
        const lines = [
          `Window ${snapshot.window.window} (${snapshot.window.from} to ${snapshot.window.to} UTC)` +
            (snapshot.freshness.dataThrough
              ? `, events received up to ${snapshot.freshness.dataThrough}.`
              : ', no events rolled up yet.'),
        ];
        if (snapshot.summary) lines.push(describeMetrics('Summary', snapshot.summary));
        for (const row of snapshot.campaigns ?? [])
          lines.push(describeMetrics(`Campaign "${row.name}" (${row.campaignId})`, row.metrics));
        for (const row of snapshot.variants ?? [])
          lines.push(describeMetrics(`Variant "${row.name}" (${row.variantId}) of ${row.campaignId}`, row.metrics));
        for (const row of snapshot.surfaces ?? []) lines.push(describeMetrics(`Surface "${row.name}"`, row.metrics));
        if (snapshot.concierge)
          lines.push(
            `Concierge: ${snapshot.concierge.questions} questions, ${snapshot.concierge.unanswered} unanswered` +
              (snapshot.concierge.topUnanswered.length
                ? ` (most asked: ${snapshot.concierge.topUnanswered
                    .slice(0, 3)
                    .map((question) => `"${question.query}"`)
                    .join(', ')})`
                : ''),
          );
        if (snapshot.timeseries) lines.push(`Timeseries: ${snapshot.timeseries.length} days in structuredContent.`);
        if (snapshot.channels) {
          lines.push(
            snapshot.channels.networks.length
              ? `Channels (not part of Impressions or Reach): ${snapshot.channels.networks.map(describeChannel).join('; ')}.`
              : 'Channels: no published post was measured in this window.',
          );
        }
        return { structured: { action: 'snapshot', snapshot }, text: lines.join('\n') };
      },
    }),
    ab_test: defineAction({
      summary:
        'per experiment (campaign with 2+ active variants): exposed and converted sessions per variant with 95% intervals, the sample-ratio-mismatch check, the method.',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('ab_test'), ...experimentInput }),
      async run(ctx, args) {
        const page = await ctx.services.analytics.experiments(ctx.scope, args);
        const experiments = page.experiments.map(({ verdict: _verdict, ...experiment }) => experiment);
        return {
          structured: {
            action: 'ab_test',
            experiments,
            notExperiments: page.notExperiments,
            method: page.method,
            nextCursor: page.nextCursor,
          },
          text: page.experiments.length
            ? page.experiments.map((experiment) => describeExperiment(experiment, false)).join('\n')
            : 'No experiments: no campaign on this page has two or more active variants.',
        };
      },
    }),
    cvg_dashboard: defineAction({
      summary:
        'per-variant performance and winner detection against control: estimate and interval, chance to beat control, always-valid p-value (Holm-adjusted), SRM, sample and runtime vs minimums, decision with reason, top performer; and the same variants compared on each social channel they were posted to.',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('cvg_dashboard'), ...experimentInput }),
      async run(ctx, args) {
        const page = await ctx.services.analytics.experiments(ctx.scope, args);
        const channels = await ctx.services.analytics.channelComparison(
          ctx.scope,
          page.experiments.map((experiment) => experiment.campaignId),
        );
        const experiments = page.experiments.map(({ verdict, ...experiment }) => ({
          ...experiment,
          runtime: verdict.runtime,
          comparisons: verdict.variants,
          topPerformer: topPerformer({ ...experiment, verdict }),
          // The same variants on social networks: engagement and link visits, apart from the site's test.
          channels: channels.get(experiment.campaignId) ?? [],
        }));
        return {
          structured: {
            action: 'cvg_dashboard',
            experiments,
            notExperiments: page.notExperiments,
            method: page.method,
            nextCursor: page.nextCursor,
          },
          text: page.experiments.length
            ? page.experiments
                .map((experiment) =>
                  [
                    describeExperiment(experiment, true),
                    ...describeComparison(channels.get(experiment.campaignId) ?? [], [
                      experiment.control,
                      ...experiment.variants,
                    ]),
                  ].join('\n'),
                )
                .join('\n')
            : 'No experiments: no campaign on this page has two or more active variants.',
        };
      },
    }),
    insights: defineAction({
      summary:
        'at most one finding per campaign (SRM warning, winner, underperformer, stall, needs traffic) plus unanswered concierge questions.',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('insights'), window: Window.optional(), ...experimentInput }),
      async run(ctx, args) {
        const result = await ctx.services.analytics.insights(ctx.scope, args);
        return {
          structured: {
            action: 'insights',
            window: result.window,
            insights: result.insights,
            nextCursor: result.nextCursor,
          },
          text: result.insights.length
            ? result.insights
                .map((insight) => `[${insight.severity}] ${insight.headline}. ${insight.suggestedAction}`)
                .join('\n')
            : 'Nothing notable: no winner, stall, sample-ratio problem or unanswered question in this window.',
        };
      },
    }),
  },
});
