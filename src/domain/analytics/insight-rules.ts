/**
 * What `query_analytics insights` says about a campaign: the rules that turn one experiment's verdict (or a
 * campaign without traffic, or the concierge's unanswered questions) into one insight with a suggested next
 * step. Pure functions of the numbers the analytics query service reads.
 */
import type { ExperimentView } from './experiments.ts';

/** The part of a snapshot's concierge section the gaps insight reads; its evidence keeps the whole section. */
interface ConciergeGaps {
  unanswered: number;
  topUnanswered: { query: string; count: number }[];
}

/** A published campaign without a single impression for this long has stalled. */
export const STALL_DAYS = 7;

export type InsightKind =
  'srm_warning' | 'winner_found' | 'underperformer' | 'stalled' | 'needs_traffic' | 'concierge_gaps';

export interface Insight {
  kind: InsightKind;
  /** Null for the workspace-level insight (unanswered concierge questions). */
  campaignId: string | null;
  campaignName: string | null;
  severity: 'high' | 'medium' | 'low';
  headline: string;
  detail: string;
  /** What the agent could propose next (never applied without the user's approval). */
  suggestedAction: string;
  evidence: Record<string, unknown>;
}

function pct(value: number): string {
  return `${(value * 100).toFixed(value < 0.01 ? 2 : 1)}%`;
}

export function stalledInsight(campaignId: string, campaignName: string): Insight {
  return {
    kind: 'stalled',
    campaignId,
    campaignName,
    severity: 'medium',
    headline: `"${campaignName}" is published but had no impressions in the last ${STALL_DAYS} days`,
    detail: 'Nothing is serving it: it may not be deployed to any zone, or its zones get no traffic.',
    suggestedAction:
      'Check deployments (query_campaigns get) and propose a zone (query_surfaces list_zones, then manage_campaigns deploy) after approval.',
    evidence: { impressionsLastDays: 0, days: STALL_DAYS },
  };
}

/** The single most useful thing to say about one experiment, in priority order. */
export function experimentInsight(experiment: ExperimentView, recentImpressions: number): Insight | null {
  const base = { campaignId: experiment.campaignId, campaignName: experiment.campaignName };
  const { verdict } = experiment;
  if (verdict.srm.mismatch) {
    return {
      ...base,
      kind: 'srm_warning',
      severity: 'high',
      headline: `Traffic split of "${experiment.campaignName}" does not match its weights (SRM p = ${verdict.srm.pValue.toExponential(2)})`,
      detail:
        'The observed exposures per variant are too far from the configured split for chance: results are not trustworthy until the cause (caching, a broken variant, bot traffic) is found.',
      suggestedAction: 'Do not act on this experiment; check the variants and deployments, then restart it.',
      evidence: { srm: experiment.srm, exposures: [experiment.control, ...experiment.variants].map(armEvidence) },
    };
  }
  const winner = verdict.variants
    .filter((variant) => variant.decision === 'winner')
    .sort((a, b) => b.variant.rate - a.variant.rate)[0];
  if (winner) {
    const arm = experiment.variants.find((variant) => variant.variantId === winner.variantId)!;
    return {
      ...base,
      kind: 'winner_found',
      severity: 'high',
      headline: `"${arm.name}" beats control in "${experiment.campaignName}": ${pct(arm.rate)} vs ${pct(experiment.control.rate)}`,
      detail: `Relative uplift ${pct(winner.relativeUplift.estimate)}, chance to beat control ${pct(winner.chanceToBeatControl)}, always-valid adjusted p = ${winner.sequential.adjustedPValue.toPrecision(2)} after ${experiment.runtimeDays} days.`,
      suggestedAction:
        'Propose shifting traffic to the winner (raise its weight or make it the control) and pausing or deleting the control; apply only after approval.',
      evidence: { variantId: arm.variantId, decision: winner.decision, reason: winner.reason },
    };
  }
  const loser = verdict.variants.find((variant) => variant.decision === 'loser');
  if (loser) {
    const arm = experiment.variants.find((variant) => variant.variantId === loser.variantId)!;
    return {
      ...base,
      kind: 'underperformer',
      severity: 'medium',
      headline: `"${arm.name}" converts worse than control in "${experiment.campaignName}": ${pct(arm.rate)} vs ${pct(experiment.control.rate)}`,
      detail: loser.reason,
      suggestedAction: `Propose deleting or rewriting "${arm.name}" (manage_campaigns delete_variant or update_variant) after approval.`,
      evidence: { variantId: arm.variantId, decision: loser.decision },
    };
  }
  const arms = [experiment.control, ...experiment.variants];
  const best = arms.reduce((a, b) => (b.rate > a.rate ? b : a));
  const far = arms.find(
    (arm) =>
      !arm.smallSample &&
      !best.smallSample &&
      arm !== best &&
      arm.interval[1] < best.interval[0] &&
      arm.rate < best.rate / 2,
  );
  if (far) {
    return {
      ...base,
      kind: 'underperformer',
      severity: 'low',
      headline: `"${far.name}" is far below "${best.name}" in "${experiment.campaignName}" (${pct(far.rate)} vs ${pct(best.rate)})`,
      detail: 'Not yet a declared result (the experiment keeps running), but the intervals do not overlap.',
      suggestedAction: `Consider rewriting "${far.name}"; wait for the dashboard's decision before deleting it.`,
      evidence: { variantId: far.variantId, interval: far.interval, bestInterval: best.interval },
    };
  }
  if (experiment.campaignStatus === 'published' && recentImpressions === 0) {
    return stalledInsight(experiment.campaignId, experiment.campaignName);
  }
  const inconclusive = verdict.variants.find((variant) => variant.decision === 'inconclusive');
  if (inconclusive) {
    return {
      ...base,
      kind: 'stalled',
      severity: 'medium',
      headline: `"${experiment.campaignName}" ran ${experiment.runtimeDays} days without a clear result`,
      detail: inconclusive.reason,
      suggestedAction:
        'Propose ending the test (keep the control) or trying a bolder variant (generate_campaign regenerate) after approval.',
      evidence: { runtimeDays: experiment.runtimeDays, maxDays: verdict.runtime.maxDays },
    };
  }
  if (arms.some((arm) => arm.smallSample)) {
    return {
      ...base,
      kind: 'needs_traffic',
      severity: 'low',
      headline: `"${experiment.campaignName}" needs more traffic before any conclusion`,
      detail: `Each variant needs at least ${verdict.method.minExposuresPerArm} exposed sessions and ${verdict.method.minConversionsPerArm} conversions; ${arms
        .map((arm) => `${arm.name}: ${arm.exposures}/${arm.conversions}`)
        .join(', ')}.`,
      suggestedAction: 'Deploy it to more zones (manage_campaigns deploy) or wait.',
      evidence: { exposures: arms.map(armEvidence) },
    };
  }
  return null;
}

function armEvidence(arm: ExperimentView['control']) {
  return { variantId: arm.variantId, name: arm.name, exposures: arm.exposures, conversions: arm.conversions };
}

/** The workspace-level insight: visitor questions the concierge could not answer. */
export function conciergeGapsInsight(gaps: ConciergeGaps, window: string): Insight {
  return {
    kind: 'concierge_gaps',
    campaignId: null,
    campaignName: null,
    severity: gaps.unanswered >= 10 ? 'medium' : 'low',
    headline: `${gaps.unanswered} visitor question(s) the concierge could not answer`,
    detail: `Most asked: ${gaps.topUnanswered
      .slice(0, 5)
      .map((question) => `"${question.query}" (${question.count}×)`)
      .join('; ')}.`,
    suggestedAction:
      'Propose FAQ entries or product details that answer these (manage_brand update_concierge / manage_products update); apply only after approval.',
    evidence: { window, ...gaps },
  };
}
