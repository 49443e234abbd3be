/**
 * Bayesian comparison of two conversion rates with the Beta–Binomial model (the model behind GrowthBook's
 * "chance to win" and Evan Miller's "Formulas for Bayesian A/B testing").
 *
 * Each arm's rate p has a Beta(α₀, β₀) prior (Beta(1, 1), uniform, by default); after c conversions out of
 * n exposures its posterior is Beta(α₀ + c, β₀ + n − c).
 *
 * chanceToBeatControl = P(p_t > p_c) and the expected losses are one-dimensional integrals over the density
 * of the narrower posterior D against the CDF of the other one O:
 *   P(O < D)        = ∫ f_D(x) · I_x(α_O, β_O) dx
 *   E[(D − O)⁺]     = ∫ f_D(x) · (x · I_x(α_O, β_O) − μ_O · I_x(α_O + 1, β_O)) dx
 *                     (because E[O · 1{O < x}] = μ_O · I_x(α_O + 1, β_O)), where
 *   I_x(α + 1, β)   = I_x(α, β) − x^α (1 − x)^β / (α B(α, β)) = I_x(α, β) − x(1 − x)/α · f_O(x)
 *                     (the incomplete beta's recurrence in α, with f_O the density of O)
 *   E[(O − D)⁺]     = E[(D − O)⁺] + μ_O − μ_D
 * Integrating over the narrower posterior keeps the other CDF smooth on the integration range. The range is
 * mean ± 20 sd clipped to [0, 1] (outside it the Beta mass is below 1e-9 even for the skewed Beta(1, n)).
 *
 * Large counts. The density is used without its normalising constant, in log space and relative to the
 * posterior mean c:  ln f(x) + const = (α − 1)·ln1p((x − c)/c) + (β − 1)·ln1p((c − x)/(1 − c)).
 * The textbook form (α − 1) ln x + (β − 1) ln(1 − x) − ln B(α, β) subtracts terms of size ~10⁵ at a million
 * exposures and keeps only ~1e-11 relative precision, which is noise the adaptive quadrature would chase
 * forever; the centred form keeps ~1e-13. Every integral is then divided by the integrated density mass, which
 * supplies the constant and cancels truncation and quadrature error to first order.
 */
import { integrate } from './quadrature.ts';
import { betaCdfAndDensity, standardNormalQuantile } from './special-functions.ts';
import { assertArmCounts, type ArmCounts, type Interval } from './types.ts';

export interface BetaPrior {
  alpha: number;
  beta: number;
}

export const UNIFORM_PRIOR: BetaPrior = Object.freeze({ alpha: 1, beta: 1 });

export interface BetaBinomialOptions {
  /** Prior of both arms' rates; Beta(1, 1) unless given. */
  prior?: BetaPrior;
  /** Probability mass of the relative-uplift credible interval; 0.95 unless given. */
  credibleLevel?: number;
}

export interface BetaPosterior {
  alpha: number;
  beta: number;
  mean: number;
  sd: number;
}

export interface BetaBinomialComparison {
  prior: BetaPrior;
  control: BetaPosterior;
  treatment: BetaPosterior;
  /** Posterior mean of p_t − p_c. */
  absoluteDifference: number;
  relativeUplift: {
    /** μ_t / μ_c − 1 from the posterior means. */
    estimate: number;
    credibleInterval: Interval;
    level: number;
  };
  /** P(p_t > p_c) under the posteriors. */
  chanceToBeatControl: number;
  expectedLoss: {
    /** E[max(p_c − p_t, 0)]: conversion rate given up, on average, by shipping the treatment. */
    shipTreatment: number;
    /** E[max(p_t − p_c, 0)]: conversion rate given up, on average, by keeping the control. */
    keepControl: number;
  };
}

export function betaPosterior(counts: ArmCounts, prior: BetaPrior = UNIFORM_PRIOR): BetaPosterior {
  const alpha = prior.alpha + counts.conversions;
  const beta = prior.beta + counts.exposures - counts.conversions;
  const total = alpha + beta;
  const mean = alpha / total;
  const sd = Math.sqrt((alpha * beta) / (total * total * (total + 1)));
  return { alpha, beta, mean, sd };
}

interface PairwiseIntegrals {
  /** P(O < D). */
  probabilityOtherBelow: number;
  /** E[max(D − O, 0)]. */
  expectedExcess: number;
}

/** ln of the Beta density at x up to an additive constant, centred on the posterior mean (see the header). */
function centredBetaLogKernel(x: number, posterior: BetaPosterior): number {
  const c = posterior.mean;
  return (posterior.alpha - 1) * Math.log1p((x - c) / c) + (posterior.beta - 1) * Math.log1p((c - x) / (1 - c));
}

/** The two integrals of the header comment, for density posterior D and CDF posterior O. */
function integrateAgainst(density: BetaPosterior, other: BetaPosterior): PairwiseIntegrals {
  const from = Math.max(0, density.mean - 20 * density.sd);
  const to = Math.min(1, density.mean + 20 * density.sd);
  const [mass = 0, below = 0, excess = 0] = integrate(
    (x) => {
      const pdf = Math.exp(centredBetaLogKernel(x, density));
      if (pdf === 0) return [0, 0, 0];
      // I_x(α + 1, β) = I_x(α, β) − x(1 − x)/α · f(x; α, β): the shifted CDF from the same evaluation as the
      // CDF, instead of a second incomplete beta (which was half of the A/B dashboard's CPU time).
      const [cdf = 0, otherDensity = 0] = betaCdfAndDensity(x, other.alpha, other.beta);
      const shiftedCdf = cdf - ((x * (1 - x)) / other.alpha) * otherDensity;
      return [pdf, pdf * cdf, pdf * (x * cdf - other.mean * shiftedCdf)];
    },
    from,
    to,
    3,
    // 1e-10 of the mass: about the precision of the Beta CDF evaluations at a million exposures; a tighter
    // target only chases rounding noise.
    { absoluteTolerance: 0, relativeTolerance: 1e-10 },
  );
  return {
    probabilityOtherBelow: clamp01(below / mass),
    expectedExcess: Math.max(0, excess / mass),
  };
}

/**
 * Relative uplift credible interval by the delta method on ln(p_t / p_c) (normal approximation of each
 * posterior: Var ln p ≈ sd² / μ²), mapped back through exp(·) − 1 so that it never goes below −100 %.
 * GrowthBook's Bayesian engine also summarises the uplift with a delta-method normal approximation; the
 * chance to beat and the losses above are exact integrals and do not depend on this approximation.
 */
function relativeUpliftInterval(control: BetaPosterior, treatment: BetaPosterior, level: number): Interval {
  const z = standardNormalQuantile(1 - (1 - level) / 2);
  const logRatio = Math.log(treatment.mean) - Math.log(control.mean);
  const logSd = Math.sqrt((treatment.sd / treatment.mean) ** 2 + (control.sd / control.mean) ** 2);
  return [Math.expm1(logRatio - z * logSd), Math.expm1(logRatio + z * logSd)];
}

export function betaBinomialComparison(
  control: ArmCounts,
  treatment: ArmCounts,
  options: BetaBinomialOptions = {},
): BetaBinomialComparison {
  assertArmCounts(control, 'control');
  assertArmCounts(treatment, 'treatment');
  const prior = options.prior ?? UNIFORM_PRIOR;
  if (!(prior.alpha > 0 && prior.beta > 0)) throw new RangeError('prior alpha and beta must be positive');
  const level = options.credibleLevel ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError('credibleLevel must be in (0, 1)');

  const c = betaPosterior(control, prior);
  const t = betaPosterior(treatment, prior);

  let chanceToBeatControl: number;
  let shipTreatment: number;
  if (t.sd <= c.sd) {
    const { probabilityOtherBelow, expectedExcess } = integrateAgainst(t, c);
    chanceToBeatControl = probabilityOtherBelow; // P(p_c < p_t)
    shipTreatment = expectedExcess + c.mean - t.mean; // E[(p_c − p_t)⁺] = E[(p_t − p_c)⁺] + μ_c − μ_t
  } else {
    const { probabilityOtherBelow, expectedExcess } = integrateAgainst(c, t);
    chanceToBeatControl = 1 - probabilityOtherBelow; // 1 − P(p_t < p_c)
    shipTreatment = expectedExcess; // E[(p_c − p_t)⁺]
  }
  shipTreatment = Math.max(0, shipTreatment);

  return {
    prior: { alpha: prior.alpha, beta: prior.beta },
    control: c,
    treatment: t,
    absoluteDifference: t.mean - c.mean,
    relativeUplift: {
      estimate: t.mean / c.mean - 1,
      credibleInterval: relativeUpliftInterval(c, t, level),
      level,
    },
    chanceToBeatControl: clamp01(chanceToBeatControl),
    expectedLoss: {
      shipTreatment,
      keepControl: Math.max(0, shipTreatment + t.mean - c.mean),
    },
  };
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
