/**
 * Wilson score interval for one binomial proportion (Wilson 1927; recommended over the Wald interval by
 * Brown, Cai & DasGupta 2001 because it keeps its coverage for small counts and rates near 0 or 1):
 *   centre    = (p̂ + z²/(2n)) / (1 + z²/n)
 *   halfWidth = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/(4n²))
 * with p̂ = conversions / exposures and z = Φ⁻¹(1 − (1 − level)/2).
 */
import { standardNormalQuantile } from './special-functions.ts';
import { assertArmCounts, type ArmCounts, type Interval } from './types.ts';

export interface RateEstimate {
  /** conversions / exposures; 0 when nothing was exposed. */
  rate: number;
  interval: Interval;
  level: number;
}

export function wilsonInterval(counts: ArmCounts, level = 0.95): RateEstimate {
  assertArmCounts(counts, 'wilsonInterval');
  if (!(level > 0 && level < 1)) throw new RangeError('level must be in (0, 1)');
  const n = counts.exposures;
  if (n === 0) return { rate: 0, interval: [0, 1], level };
  const rate = counts.conversions / n;
  const z = standardNormalQuantile(1 - (1 - level) / 2);
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (rate + z2 / (2 * n)) / denominator;
  const halfWidth = (z / denominator) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  return { rate, interval: [Math.max(0, centre - halfWidth), Math.min(1, centre + halfWidth)], level };
}
