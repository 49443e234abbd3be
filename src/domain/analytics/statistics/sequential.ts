/**
 * Always-valid sequential test for the difference of two conversion rates: the mixture sequential
 * probability ratio test (mSPRT) of Johari, Koomen, Pekelis & Walsh, "Peeking at A/B Tests" (KDD 2017) and
 * "Always Valid Inference" (Operations Research 2022), the method behind Optimizely's Stats Engine.
 *
 * Model. By the central limit theorem the observed difference Δ̂ = p̂_t − p̂_c is approximately
 * N(θ, s²) with s² = σ_c²/n_c + σ_t²/n_t. Mixing the alternative θ over N(0, τ²) gives the likelihood ratio
 * against H₀: θ = 0
 *   Λ = ∫ φ(Δ̂; θ, s²) dN(θ; 0, τ²) / φ(Δ̂; 0, s²) = √(s² / (s² + τ²)) · exp( τ² Δ̂² / (2 s² (s² + τ²)) ),
 * which for equal arms n is Johari et al.'s √(V/(V + nτ²)) · exp(n²τ²Δ̂² / (2V(V + nτ²))) with V = σ_c² + σ_t².
 * Λ is a non-negative martingale under H₀, so by Ville's inequality P(Λ_n ≥ 1/α for some n) ≤ α: the
 * p-value p_n = min(1, 1/Λ_n) can be looked at after every observation without inflating false positives.
 *
 * Running minimum. The always-valid p-value of the papers is the running minimum min_{k ≤ n} 1/Λ_k, so it
 * never increases. The event "p ≤ α at some look" is the same whether or not the minimum is kept, so a
 * stateless dashboard that recomputes 1/Λ from the current counts keeps the error guarantee for its first
 * crossing; but 1/Λ alone can rise again later and a verdict could flip back. Callers that persist the last
 * p-value pass it as `previous.pValue` and get the running minimum (and the running intersection of the
 * confidence sequences) so a declared result stays declared.
 *
 * Confidence sequence. Inverting the test at every θ₀ gives the always-valid interval
 *   Δ̂ ± √( 2 s² (s² + τ²) / τ² · ln( √((s² + τ²)/s²) / α ) ),
 * which covers the true difference at all looks simultaneously with probability ≥ 1 − α (it is Howard et
 * al. 2021's normal-mixture boundary; 0 lies outside it exactly when p ≤ α).
 *
 * Mixing variance τ². τ sets which effect sizes the test is most sensitive to. Following GrowthBook's
 * asymptotic confidence sequences (Waudby-Smith et al. 2023) it is tuned so the interval is narrowest when
 * each arm has N* exposures (default 5 000): τ² = ρ²·(σ_c² + σ_t²) with
 *   ρ² = (−2 ln α + ln(1 − 2 ln α)) / N*   (Howard et al. 2021, eq. for the optimal normal-mixture width).
 * At a 10 % baseline and N* = 5 000 this puts τ at about 1.7 percentage points, i.e. effects of ~15–20 %
 * relative, the size real variant changes produce. An explicit `mixingVariance` overrides the tuning.
 *
 * Plug-in variance. σ² = p̃(1 − p̃) with the Agresti–Caffo rate p̃ = (c + 1)/(n + 2), which keeps s² > 0 when
 * an arm has no (or only) conversions and makes little difference otherwise. With a plug-in variance the
 * guarantee is asymptotic (it holds as counts grow), like every CLT-based sequential method in production;
 * the A/A simulation in the unit tests checks the false-positive rate at realistic counts.
 */
import { assertArmCounts, type ArmCounts, type Interval } from './types.ts';

export const DEFAULT_TUNING_SAMPLE_SIZE = 5_000;

export interface SequentialTestOptions {
  /** Level of the confidence sequence and of the τ² tuning; 0.05 unless given. */
  alpha?: number;
  /** N*: exposures per arm at which the confidence sequence is tuned to be narrowest. */
  tuningSampleSize?: number;
  /** τ² on the scale of the difference in rates; overrides the tuning from N*. */
  mixingVariance?: number;
  /** Results of the previous look, to keep the running minimum p-value and intersection of intervals. */
  previous?: { pValue: number; confidenceSequence?: Interval };
}

export interface SequentialTestResult {
  method: 'msprt-normal-mixture';
  alpha: number;
  /** p̂_t − p̂_c. */
  difference: number;
  /** s, the plug-in standard error of the difference. */
  standardError: number;
  /** τ² used. */
  mixingVariance: number;
  /** Λ at this look. */
  likelihoodRatio: number;
  /** min(1, 1/Λ) from the current counts alone. */
  pValueAtThisLook: number;
  /** Always-valid p-value: the running minimum including `previous.pValue` when given. */
  pValue: number;
  /** Always-valid (1 − α) confidence sequence for p_t − p_c, intersected with the previous one if given. */
  confidenceSequence: Interval;
}

/** −2 ln α + ln(1 − 2 ln α): the constant of the optimal normal-mixture tuning. */
function tuningConstant(alpha: number): number {
  const minusTwoLogAlpha = -2 * Math.log(alpha);
  return minusTwoLogAlpha + Math.log(1 + minusTwoLogAlpha);
}

function agrestiCaffoVariance(counts: ArmCounts): number {
  const rate = (counts.conversions + 1) / (counts.exposures + 2);
  return rate * (1 - rate);
}

/**
 * τ² tuned so the (1 − α) confidence sequence is narrowest at N* exposures per arm (see the header).
 * Exported so a caller can fix τ² once (e.g. at the decision level α) and vary only the interval's level.
 */
export function tunedMixingVariance(
  control: ArmCounts,
  treatment: ArmCounts,
  alpha = 0.05,
  tuningSampleSize = DEFAULT_TUNING_SAMPLE_SIZE,
): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError('alpha must be in (0, 1)');
  if (!(tuningSampleSize > 0)) throw new RangeError('tuningSampleSize must be positive');
  return (tuningConstant(alpha) * (agrestiCaffoVariance(control) + agrestiCaffoVariance(treatment))) / tuningSampleSize;
}

export function sequentialTest(
  control: ArmCounts,
  treatment: ArmCounts,
  options: SequentialTestOptions = {},
): SequentialTestResult {
  assertArmCounts(control, 'control');
  assertArmCounts(treatment, 'treatment');
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError('alpha must be in (0, 1)');
  const previousPValue = options.previous?.pValue ?? 1;
  const varianceControl = agrestiCaffoVariance(control);
  const varianceTreatment = agrestiCaffoVariance(treatment);
  const tau2 = options.mixingVariance ?? tunedMixingVariance(control, treatment, alpha, options.tuningSampleSize);
  if (!(tau2 > 0)) throw new RangeError('mixingVariance must be positive');

  if (control.exposures === 0 || treatment.exposures === 0) {
    return {
      method: 'msprt-normal-mixture',
      alpha,
      difference: 0,
      standardError: Number.POSITIVE_INFINITY,
      mixingVariance: tau2,
      likelihoodRatio: 1,
      pValueAtThisLook: 1,
      pValue: Math.min(1, previousPValue),
      confidenceSequence: options.previous?.confidenceSequence ?? [-1, 1],
    };
  }

  const difference = treatment.conversions / treatment.exposures - control.conversions / control.exposures;
  const s2 = varianceControl / control.exposures + varianceTreatment / treatment.exposures;
  const logLambda = 0.5 * Math.log(s2 / (s2 + tau2)) + (tau2 * difference * difference) / (2 * s2 * (s2 + tau2));
  const pValueAtThisLook = Math.min(1, Math.exp(-logLambda));
  const radius = Math.sqrt(((2 * s2 * (s2 + tau2)) / tau2) * (0.5 * Math.log((s2 + tau2) / s2) - Math.log(alpha)));
  let confidenceSequence: Interval = [Math.max(-1, difference - radius), Math.min(1, difference + radius)];
  const previousInterval = options.previous?.confidenceSequence;
  if (previousInterval) {
    const lower = Math.max(previousInterval[0], confidenceSequence[0]);
    const upper = Math.min(previousInterval[1], confidenceSequence[1]);
    // An empty intersection can only come from the plug-in variance moving; keep the current interval then.
    if (lower <= upper) confidenceSequence = [lower, upper];
  }
  return {
    method: 'msprt-normal-mixture',
    alpha,
    difference,
    standardError: Math.sqrt(s2),
    mixingVariance: tau2,
    likelihoodRatio: Math.exp(logLambda),
    pValueAtThisLook,
    pValue: Math.min(previousPValue, pValueAtThisLook),
    confidenceSequence,
  };
}
