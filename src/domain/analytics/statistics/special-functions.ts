/**
 * The special functions the statistics need, all from stdlib (stdlib-js), whose implementations are ports
 * of Boost.Math and stay accurate for the large parameters that large experiments produce. Only thin,
 * named wrappers live here, so the rest of the module reads in statistical terms.
 */
import gammainc from '@stdlib/math-base-special-gammainc';
import kernelBetainc from '@stdlib/math-base-special-kernel-betainc';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

/** The last `betaCdfAndDensity` result (reused: the quadrature asks for it thousands of times a page). */
const cdfAndDensity = new Float64Array(2);

/**
 * The CDF of Beta(a, b) at x and its density there, from one evaluation: Boost's incomplete beta computes the
 * derivative (the density, through its accurate power terms) on the way. The returned array is overwritten
 * by the next call.
 */
export function betaCdfAndDensity(x: number, a: number, b: number): Readonly<Float64Array> {
  if (x <= 0 || x >= 1) {
    cdfAndDensity[0] = x <= 0 ? 0 : 1;
    cdfAndDensity[1] = 0;
    return cdfAndDensity;
  }
  // Arguments as the library runs them (x, a, b, regularized, upper); its type declaration names the last two
  // differently, but the order is the one of betainc's own call of this kernel.
  kernelBetainc.assign(x, a, b, true, false, cdfAndDensity, 1, 0);
  return cdfAndDensity;
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
