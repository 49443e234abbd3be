/**
 * The special functions the statistics need, all from stdlib (stdlib-js), whose implementations are ports
 * of Boost.Math and stay accurate for the large parameters that large experiments produce. Only thin,
 * named wrappers live here, so the rest of the module reads in statistical terms.
 */
import betainc from '@stdlib/math-base-special-betainc';
import gammainc from '@stdlib/math-base-special-gammainc';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

/** Regularized incomplete beta I_x(a, b), i.e. the CDF of Beta(a, b) at x. */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return betainc(x, a, b, true, false);
}

/**
 * Survival function of the chi-square distribution with `degreesOfFreedom` at `statistic`:
 * P(X > x) = Q(k/2, x/2), the upper regularized incomplete gamma function. Computed directly rather than as
 * 1 − CDF so that the tiny p-values of a real sample-ratio mismatch keep their precision.
 */
export function chiSquareSurvival(statistic: number, degreesOfFreedom: number): number {
  if (statistic <= 0) return 1;
  return gammainc(statistic / 2, degreesOfFreedom / 2, true, true);
}

/** Φ⁻¹(p), the standard normal quantile. */
export function standardNormalQuantile(p: number): number {
  return normalQuantile(p, 0, 1);
}
