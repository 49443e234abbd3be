/**
 * Sample-ratio-mismatch check: Pearson's chi-square goodness-of-fit test of the observed exposures per arm
 * against the configured split.
 *   expected_i = N · w_i / Σw,   χ² = Σ (observed_i − expected_i)² / expected_i,   df = k − 1,
 *   p = P(χ²_df > χ²), the chi-square survival function (upper regularized incomplete gamma Q(df/2, χ²/2)).
 * A mismatch is flagged at p < 0.001, the threshold GrowthBook uses: an SRM means assignment or tracking is
 * broken, so results are not read at all; the strict threshold keeps false alarms rare even though the
 * dashboard re-checks on every look.
 */
import { chiSquareSurvival } from './special-functions.ts';

export const DEFAULT_SRM_THRESHOLD = 0.001;

export interface SrmResult {
  statistic: number;
  degreesOfFreedom: number;
  pValue: number;
  threshold: number;
  mismatch: boolean;
  /** Expected exposures per arm under the configured weights, in the order given. */
  expected: number[];
}

export function srmCheck(
  observed: readonly number[],
  expectedWeights: readonly number[],
  threshold = DEFAULT_SRM_THRESHOLD,
): SrmResult {
  if (observed.length !== expectedWeights.length) {
    throw new RangeError('srmCheck: observed and expectedWeights must have the same length');
  }
  if (observed.length < 2) throw new RangeError('srmCheck: needs at least two arms');
  if (observed.some((count) => !Number.isInteger(count) || count < 0)) {
    throw new RangeError('srmCheck: observed counts must be non-negative integers');
  }
  if (expectedWeights.some((weight) => !Number.isFinite(weight) || weight < 0)) {
    throw new RangeError('srmCheck: weights must be finite and non-negative');
  }
  const weightSum = expectedWeights.reduce((sum, weight) => sum + weight, 0);
  if (!(weightSum > 0)) throw new RangeError('srmCheck: at least one weight must be positive');

  const total = observed.reduce((sum, count) => sum + count, 0);
  const expected = expectedWeights.map((weight) => (total * weight) / weightSum);
  let statistic = 0;
  let categories = 0;
  for (let i = 0; i < observed.length; i++) {
    const o = observed[i]!;
    const e = expected[i]!;
    if (expectedWeights[i] === 0) {
      // An arm configured to receive no traffic that received some is a mismatch outright.
      if (o > 0) statistic = Number.POSITIVE_INFINITY;
      continue;
    }
    categories++;
    if (e > 0) statistic += ((o - e) * (o - e)) / e;
  }
  const degreesOfFreedom = Math.max(1, categories - 1);
  const pValue =
    total === 0 ? 1 : statistic === Number.POSITIVE_INFINITY ? 0 : chiSquareSurvival(statistic, degreesOfFreedom);
  return { statistic, degreesOfFreedom, pValue, threshold, mismatch: pValue < threshold, expected };
}
