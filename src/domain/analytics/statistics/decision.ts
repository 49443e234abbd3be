/**
 * Winner detection for one experiment: every variant against the control, with a stated method.
 *
 * Rule, checked in this order for each variant (the first that applies decides):
 *  1. Sample ratio mismatch (chi-square p < 0.001 over all arms)      → inconclusive, never a winner.
 *  2. Either arm below the minimum sample (100 exposures, 10 conversions by default):
 *       runtime ≥ maximum → inconclusive; otherwise                  → keep_running.
 *  3. Runtime below the minimum (7 days by default, one weekly cycle) → keep_running.
 *  4. Holm-adjusted always-valid (mSPRT) p-value ≤ α (0.05):
 *       difference > 0 → winner, < 0 → loser.
 *  5. Runtime ≥ maximum (28 days by default)                          → inconclusive.
 *  6. Otherwise                                                        → keep_running.
 * The decision uses only the sequential p-value, which stays valid however often the dashboard is polled.
 * The Bayesian chance to beat control (Beta–Binomial) and the expected losses are reported alongside with
 * a Bonferroni-adjusted threshold 1 − α/m, as a read-out for people, not as a second decision rule.
 */
import { betaBinomialComparison, UNIFORM_PRIOR, type BetaPrior } from './beta-binomial.ts';
import { bonferroniAlpha, holmBonferroni } from './multiple-comparisons.ts';
import { DEFAULT_TUNING_SAMPLE_SIZE, sequentialTest, tunedMixingVariance } from './sequential.ts';
import { DEFAULT_SRM_THRESHOLD, srmCheck, type SrmResult } from './srm.ts';
import { assertArmCounts, type ArmCounts, type Interval } from './types.ts';
import { wilsonInterval } from './wilson.ts';

export const EXPERIMENT_DECISIONS = ['winner', 'loser', 'keep_running', 'inconclusive'] as const;
export type ExperimentDecision = (typeof EXPERIMENT_DECISIONS)[number];

export interface ExperimentArm extends ArmCounts {
  id: string;
}

export interface DecisionInput {
  control: ExperimentArm;
  variants: readonly ExperimentArm[];
  /** Configured traffic split in the order [control, ...variants]; an equal split unless given. */
  expectedWeights?: readonly number[];
  /** Days the experiment has been running (observed by the caller). */
  runtimeDays: number;
  /**
   * The always-valid p-value each variant had at the previous look (variant id → p). When given, the
   * running minimum is used so a declared result cannot flip back; without it each look stands alone.
   */
  previousPValues?: Readonly<Record<string, number>>;
}

export interface DecisionOptions {
  /** Family-wise error rate across all variants; 0.05. */
  alpha?: number;
  /** Minimum exposures in each arm before a decision; 100. */
  minExposuresPerArm?: number;
  /** Minimum conversions in each arm before a decision; 10. */
  minConversionsPerArm?: number;
  /** Minimum runtime in days before a winner or loser; 7. */
  minRuntimeDays?: number;
  /** Runtime in days after which an undecided experiment is inconclusive; 28. */
  maxRuntimeDays?: number;
  /** SRM p-value threshold; 0.001. */
  srmThreshold?: number;
  /** Beta prior for the Bayesian read-out; Beta(1, 1). */
  prior?: BetaPrior;
  /** N* for the mSPRT mixing variance; 5 000 exposures per arm. */
  tuningSampleSize?: number;
}

export const DEFAULT_DECISION_OPTIONS = Object.freeze({
  alpha: 0.05,
  minExposuresPerArm: 100,
  minConversionsPerArm: 10,
  minRuntimeDays: 7,
  maxRuntimeDays: 28,
  srmThreshold: DEFAULT_SRM_THRESHOLD,
  prior: UNIFORM_PRIOR,
  tuningSampleSize: DEFAULT_TUNING_SAMPLE_SIZE,
} satisfies Required<DecisionOptions>);

export interface ArmSummary {
  id: string;
  exposures: number;
  conversions: number;
  /** conversions / exposures. */
  rate: number;
  /** 95 % Wilson score interval of the rate. */
  interval: Interval;
  /** Below the minimum exposures or conversions: treat the rate as anecdotal. */
  smallSample: boolean;
}

export interface VariantVerdict {
  variantId: string;
  decision: ExperimentDecision;
  reason: string;
  variant: ArmSummary;
  /** p_t − p_c with an always-valid confidence sequence, simultaneous over the variants (level 1 − α/m). */
  absoluteDifference: { estimate: number; confidenceSequence: Interval; level: number };
  /** Relative uplift p_t / p_c − 1 (posterior means) with its credible interval (level 1 − α). */
  relativeUplift: { estimate: number; credibleInterval: Interval; level: number };
  /** Bayesian P(p_t > p_c). */
  chanceToBeatControl: number;
  /** 1 − α/m: the Bonferroni-adjusted bar a chance to beat (or 1 − it, to lose) must clear to be "clear". */
  chanceToBeatThreshold: number;
  expectedLoss: { shipVariant: number; keepControl: number };
  sequential: {
    /** Always-valid p-value (running minimum when the previous one was given). */
    pValue: number;
    /** Holm–Bonferroni adjusted over the m variants; compared with α for the decision. */
    adjustedPValue: number;
    likelihoodRatio: number;
    mixingVariance: number;
  };
  sample: { minExposuresPerArm: number; minConversionsPerArm: number; enough: boolean };
  /** Either arm of this comparison is below the minimum sample. */
  smallSample: boolean;
}

export interface MethodDescription {
  decision: string;
  sequentialTest: string;
  bayesian: string;
  multipleComparisons: string;
  srm: string;
  alpha: number;
  comparisons: number;
  prior: BetaPrior;
  tuningSampleSize: number;
  minExposuresPerArm: number;
  minConversionsPerArm: number;
  minRuntimeDays: number;
  maxRuntimeDays: number;
  srmThreshold: number;
}

export interface ExperimentVerdict {
  method: MethodDescription;
  control: ArmSummary;
  srm: SrmResult;
  runtime: { days: number; minDays: number; maxDays: number };
  variants: VariantVerdict[];
}

/** The method in words and numbers, for `ab_test` and `cvg_dashboard` to state what they used. */
export function describeMethod(options: DecisionOptions = {}, comparisons = 1): MethodDescription {
  const o = { ...DEFAULT_DECISION_OPTIONS, ...options };
  return {
    decision:
      `winner/loser when the Holm-adjusted always-valid p-value is ≤ ${o.alpha} after at least ${o.minRuntimeDays} days ` +
      `and ${o.minExposuresPerArm} exposures and ${o.minConversionsPerArm} conversions per arm; inconclusive on a ` +
      `sample ratio mismatch or after ${o.maxRuntimeDays} days without significance; otherwise keep_running`,
    sequentialTest:
      'mixture SPRT (Johari et al. 2017, Optimizely Stats Engine) on the normal approximation of the difference ' +
      `in conversion rates, normal mixture tuned for ${o.tuningSampleSize} exposures per arm; p-values and ` +
      'confidence sequences stay valid under continuous monitoring',
    bayesian:
      `Beta-Binomial with a Beta(${o.prior.alpha}, ${o.prior.beta}) prior; chance to beat control by numerical ` +
      'integration; reported, not used for the decision',
    multipleComparisons: `Holm-Bonferroni over ${comparisons} variant(s) (family-wise error ≤ ${o.alpha}); Bonferroni for intervals and chance-to-beat threshold`,
    srm: `Pearson chi-square goodness of fit against the configured split, mismatch at p < ${o.srmThreshold}`,
    alpha: o.alpha,
    comparisons,
    prior: { alpha: o.prior.alpha, beta: o.prior.beta },
    tuningSampleSize: o.tuningSampleSize,
    minExposuresPerArm: o.minExposuresPerArm,
    minConversionsPerArm: o.minConversionsPerArm,
    minRuntimeDays: o.minRuntimeDays,
    maxRuntimeDays: o.maxRuntimeDays,
    srmThreshold: o.srmThreshold,
  };
}

export function decide(input: DecisionInput, options: DecisionOptions = {}): ExperimentVerdict {
  const o = { ...DEFAULT_DECISION_OPTIONS, ...options };
  if (!(o.alpha > 0 && o.alpha < 1)) throw new RangeError('alpha must be in (0, 1)');
  if (!(input.runtimeDays >= 0)) throw new RangeError('runtimeDays must be a non-negative number');
  const { control, variants } = input;
  assertArmCounts(control, `arm ${control.id}`);
  for (const variant of variants) assertArmCounts(variant, `arm ${variant.id}`);
  const m = variants.length;
  const weights = input.expectedWeights ?? new Array<number>(m + 1).fill(1);
  if (weights.length !== m + 1) throw new RangeError('expectedWeights must list the control and every variant');

  const isSmall = (arm: ArmCounts) => arm.exposures < o.minExposuresPerArm || arm.conversions < o.minConversionsPerArm;
  const summarise = (arm: ExperimentArm): ArmSummary => {
    const { rate, interval } = wilsonInterval(arm);
    return {
      id: arm.id,
      exposures: arm.exposures,
      conversions: arm.conversions,
      rate,
      interval,
      smallSample: isSmall(arm),
    };
  };
  const controlSummary = summarise(control);
  const srm = srmCheck([control.exposures, ...variants.map((v) => v.exposures)], weights, o.srmThreshold);
  const runtime = { days: input.runtimeDays, minDays: o.minRuntimeDays, maxDays: o.maxRuntimeDays };
  const perComparisonAlpha = bonferroniAlpha(o.alpha, m);

  const comparisons = variants.map((variant) => {
    const mixingVariance = tunedMixingVariance(control, variant, o.alpha, o.tuningSampleSize);
    const previousPValue = input.previousPValues?.[variant.id];
    const sequential = sequentialTest(control, variant, {
      alpha: perComparisonAlpha,
      mixingVariance,
      ...(previousPValue === undefined ? {} : { previous: { pValue: previousPValue } }),
    });
    const bayesian = betaBinomialComparison(control, variant, { prior: o.prior, credibleLevel: 1 - o.alpha });
    return { variant, sequential, bayesian };
  });
  const adjusted = holmBonferroni(comparisons.map((c) => c.sequential.pValue));

  const verdicts = comparisons.map(({ variant, sequential, bayesian }, index): VariantVerdict => {
    const adjustedPValue = adjusted[index]!;
    const smallSample = controlSummary.smallSample || isSmall(variant);
    const { decision, reason } = chooseDecision({
      srm,
      smallSample,
      control,
      variant,
      runtimeDays: input.runtimeDays,
      adjustedPValue,
      difference: sequential.difference,
      relativeUplift: bayesian.relativeUplift.estimate,
      confidenceSequence: sequential.confidenceSequence,
      chanceToBeatControl: bayesian.chanceToBeatControl,
      comparisons: m,
      options: o,
    });
    return {
      variantId: variant.id,
      decision,
      reason,
      variant: summarise(variant),
      absoluteDifference: {
        estimate: sequential.difference,
        confidenceSequence: sequential.confidenceSequence,
        level: 1 - perComparisonAlpha,
      },
      relativeUplift: bayesian.relativeUplift,
      chanceToBeatControl: bayesian.chanceToBeatControl,
      chanceToBeatThreshold: 1 - perComparisonAlpha,
      expectedLoss: {
        shipVariant: bayesian.expectedLoss.shipTreatment,
        keepControl: bayesian.expectedLoss.keepControl,
      },
      sequential: {
        pValue: sequential.pValue,
        adjustedPValue,
        likelihoodRatio: sequential.likelihoodRatio,
        mixingVariance: sequential.mixingVariance,
      },
      sample: {
        minExposuresPerArm: o.minExposuresPerArm,
        minConversionsPerArm: o.minConversionsPerArm,
        enough: !smallSample,
      },
      smallSample,
    };
  });

  return { method: describeMethod(o, m), control: controlSummary, srm, runtime, variants: verdicts };
}

interface DecisionContext {
  srm: SrmResult;
  smallSample: boolean;
  control: ExperimentArm;
  variant: ExperimentArm;
  runtimeDays: number;
  adjustedPValue: number;
  difference: number;
  relativeUplift: number;
  confidenceSequence: Interval;
  chanceToBeatControl: number;
  comparisons: number;
  options: Required<DecisionOptions>;
}

function chooseDecision(c: DecisionContext): { decision: ExperimentDecision; reason: string } {
  const o = c.options;
  const pText = `always-valid p = ${formatP(c.adjustedPValue)}${c.comparisons > 1 ? ` (Holm-adjusted over ${c.comparisons} variants)` : ''}`;
  const chanceText = `chance to beat control ${formatPercent(c.chanceToBeatControl)}`;
  const effectText =
    `${formatSignedPercent(c.relativeUplift)} relative, difference ${formatPoints(c.difference)} ` +
    `(always-valid interval ${formatPoints(c.confidenceSequence[0])} to ${formatPoints(c.confidenceSequence[1])})`;
  const maxReached = c.runtimeDays >= o.maxRuntimeDays;

  if (c.srm.mismatch) {
    return {
      decision: 'inconclusive',
      reason:
        `sample ratio mismatch: exposures per arm differ from the configured split (chi-square p = ` +
        `${formatP(c.srm.pValue)} < ${c.srm.threshold}, expected ${c.srm.expected.map((e) => Math.round(e)).join('/')}); ` +
        'assignment or tracking is broken, so no result can be trusted until it is fixed',
    };
  }
  if (c.smallSample) {
    const need = `needs at least ${o.minExposuresPerArm} exposures and ${o.minConversionsPerArm} conversions per arm`;
    const have = `control ${c.control.exposures}/${c.control.conversions}, variant ${c.variant.exposures}/${c.variant.conversions} exposures/conversions`;
    return maxReached
      ? {
          decision: 'inconclusive',
          reason: `maximum runtime of ${o.maxRuntimeDays} days reached with too little data: ${need} (${have})`,
        }
      : { decision: 'keep_running', reason: `small sample: ${need} (${have})` };
  }
  const significant = c.adjustedPValue <= o.alpha;
  if (c.runtimeDays < o.minRuntimeDays) {
    return {
      decision: 'keep_running',
      reason:
        `minimum runtime not reached (${formatDays(c.runtimeDays)} of ${o.minRuntimeDays} days)` +
        (significant ? `; already significant (${pText}), confirming over a full weekly cycle` : `; ${pText}`),
    };
  }
  if (significant && c.difference !== 0) {
    const direction = c.difference > 0 ? 'winner' : 'loser';
    return {
      decision: direction,
      reason: `${direction === 'winner' ? 'beats' : 'loses to'} control: ${effectText}; ${pText} ≤ ${o.alpha}; ${chanceText}`,
    };
  }
  if (maxReached) {
    return {
      decision: 'inconclusive',
      reason: `no significant difference after ${formatDays(c.runtimeDays)} days (maximum ${o.maxRuntimeDays}): ${pText} > ${o.alpha}; ${chanceText}`,
    };
  }
  return {
    decision: 'keep_running',
    reason: `no significant difference yet (${pText} > ${o.alpha}) after ${formatDays(c.runtimeDays)} of at most ${o.maxRuntimeDays} days; ${chanceText}`,
  };
}

function formatP(p: number): string {
  if (p < 0.0001) return '< 0.0001';
  return p >= 0.1 ? p.toFixed(2) : p.toPrecision(2);
}

function formatPercent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function formatSignedPercent(value: number): string {
  return `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
}

function formatPoints(value: number): string {
  return `${value >= 0 ? '+' : ''}${(value * 100).toFixed(2)} pp`;
}

function formatDays(days: number): string {
  return Number.isInteger(days) ? String(days) : days.toFixed(1);
}
