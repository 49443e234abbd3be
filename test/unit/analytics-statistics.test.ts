/**
 * Experiment statistics checked against references computed here, independently of the code under test:
 * a seeded Monte Carlo (Marsaglia–Tsang gamma sampler → Beta draws), Evan Miller's closed form for the
 * chance to beat, a series for erf (chi-square with one degree of freedom), exp(−x/2) (two degrees of
 * freedom), hand-computed Holm and Wilson values, and simulations of repeated looks at A/A data.
 */
import { jest } from '@jest/globals';
import type { ArmCounts } from '../../src/domain/analytics/statistics/index.ts';

// The quadrature's integrand evaluations are counted: the real `integrate` runs, with a counter around the
// integrand it is given, so the cost of a comparison is checked as work done rather than as time taken.
// (The statistics module is imported after the counter is in place, hence the dynamic imports.)
const quadrature = await import('../../src/domain/analytics/statistics/quadrature.ts');
let integrandEvaluations = 0;
jest.unstable_mockModule('../../src/domain/analytics/statistics/quadrature.ts', () => ({
  ...quadrature,
  integrate: (...[integrand, ...rest]: Parameters<typeof quadrature.integrate>) =>
    quadrature.integrate(
      (x) => {
        integrandEvaluations += 1;
        return integrand(x);
      },
      ...rest,
    ),
}));
const { betaBinomialComparison, bonferroniAlpha, decide, holmBonferroni, sequentialTest, srmCheck, wilsonInterval } =
  await import('../../src/domain/analytics/statistics/index.ts');

// ---------------------------------------------------------------------------------------------------------
// Independent references
// ---------------------------------------------------------------------------------------------------------

// Global lookups are slow inside jest's VM context; the simulations draw ~50 million numbers.
const { imul, log, sqrt, sin, cos, exp, max, floor, abs, PI } = Math;

/** mulberry32: a small seeded PRNG with 32-bit state; values in (0, 1), never exactly 0. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

function standardNormalSampler(random: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const value = spare;
      spare = null;
      return value;
    }
    // Box–Muller.
    const radius = sqrt(-2 * log(random()));
    const angle = 2 * PI * random();
    spare = radius * sin(angle);
    return radius * cos(angle);
  };
}

/** Marsaglia & Tsang (2000), "A simple method for generating gamma variables", shape ≥ 1. */
function gammaSample(shape: number, random: () => number, normal: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4) return d * v;
    if (log(u) < 0.5 * x * x + d * (1 - v + log(v))) return d * v;
  }
}

interface MonteCarloEstimate {
  chanceToBeat: number;
  loss: number;
  lossStandardError: number;
  upliftQuantiles: [number, number];
}

/** P(p_t > p_c), E[max(p_c − p_t, 0)] and the 2.5 %/97.5 % quantiles of p_t/p_c − 1 from Beta draws. */
function monteCarlo(control: ArmCounts, treatment: ArmCounts, draws: number, seed: number): MonteCarloEstimate {
  const random = seededRandom(seed);
  const normal = standardNormalSampler(random);
  const beta = (a: number, b: number) => {
    const x = gammaSample(a, random, normal);
    return x / (x + gammaSample(b, random, normal));
  };
  let wins = 0;
  let lossSum = 0;
  let lossSquares = 0;
  const uplifts = new Float64Array(draws);
  for (let i = 0; i < draws; i++) {
    const pc = beta(1 + control.conversions, 1 + control.exposures - control.conversions);
    const pt = beta(1 + treatment.conversions, 1 + treatment.exposures - treatment.conversions);
    if (pt > pc) wins++;
    const loss = max(pc - pt, 0);
    lossSum += loss;
    lossSquares += loss * loss;
    uplifts[i] = pt / pc - 1;
  }
  uplifts.sort();
  const mean = lossSum / draws;
  return {
    chanceToBeat: wins / draws,
    loss: mean,
    lossStandardError: sqrt((lossSquares / draws - mean * mean) / draws),
    upliftQuantiles: [uplifts[floor(0.025 * draws)]!, uplifts[floor(0.975 * draws)]!],
  };
}

/** ln Γ(x) by the Lanczos approximation (g = 7, n = 9), x ≥ 0.5. */
function logGamma(x: number): number {
  const coefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let sum = coefficients[0]!;
  for (let i = 1; i < coefficients.length; i++) sum += coefficients[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * log(2 * PI) + (z + 0.5) * log(t) - t + log(sum);
}

function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/**
 * Evan Miller, "Formulas for Bayesian A/B Testing": for integer α_t,
 * P(p_t > p_c) = Σ_{i=0}^{α_t−1} B(α_c + i, β_c + β_t) / ((β_t + i) · B(1 + i, β_t) · B(α_c, β_c)).
 */
function evanMillerChanceToBeat(control: ArmCounts, treatment: ArmCounts): number {
  const alphaC = 1 + control.conversions;
  const betaC = 1 + control.exposures - control.conversions;
  const alphaT = 1 + treatment.conversions;
  const betaT = 1 + treatment.exposures - treatment.conversions;
  let total = 0;
  for (let i = 0; i < alphaT; i++) {
    total += exp(logBeta(alphaC + i, betaC + betaT) - log(betaT + i) - logBeta(1 + i, betaT) - logBeta(alphaC, betaC));
  }
  return total;
}

/** erf by its Maclaurin series (converges for all x; used here for x < 3). */
function erfSeries(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (-x * x) / n;
    sum += term / (2 * n + 1);
  }
  return (2 / sqrt(PI)) * sum;
}

function standardNormalCdf(x: number): number {
  return 0.5 * (1 + erfSeries(x / Math.SQRT2));
}

function binomialSample(n: number, p: number, random: () => number): number {
  let successes = 0;
  for (let i = 0; i < n; i++) if (random() < p) successes++;
  return successes;
}

// ---------------------------------------------------------------------------------------------------------
// Beta–Binomial
// ---------------------------------------------------------------------------------------------------------

const CASES: Array<{ name: string; control: ArmCounts; treatment: ArmCounts }> = [
  { name: 'small counts', control: { exposures: 10, conversions: 3 }, treatment: { exposures: 12, conversions: 7 } },
  {
    name: 'moderate',
    control: { exposures: 1000, conversions: 120 },
    treatment: { exposures: 1000, conversions: 145 },
  },
  {
    name: 'treatment worse',
    control: { exposures: 1000, conversions: 150 },
    treatment: { exposures: 1000, conversions: 120 },
  },
  {
    name: '50,000 exposures per arm',
    control: { exposures: 50_000, conversions: 5_000 },
    treatment: { exposures: 50_000, conversions: 5_150 },
  },
  {
    name: 'rare conversions at 50,000 exposures',
    control: { exposures: 50_000, conversions: 12 },
    treatment: { exposures: 50_000, conversions: 25 },
  },
  {
    name: 'a million exposures',
    control: { exposures: 1_000_000, conversions: 50_000 },
    treatment: { exposures: 900_000, conversions: 45_500 },
  },
  {
    name: 'narrow control, wide treatment',
    control: { exposures: 50_000, conversions: 2_500 },
    treatment: { exposures: 2_000, conversions: 110 },
  },
];

describe('betaBinomialComparison', () => {
  it('gives exactly one half for identical posteriors, whatever the counts', () => {
    for (const arm of [
      { exposures: 0, conversions: 0 },
      { exposures: 1000, conversions: 100 },
      { exposures: 50_000, conversions: 5_000 },
      { exposures: 1_000_000, conversions: 31 },
    ]) {
      const result = betaBinomialComparison(arm, arm);
      expect(abs(result.chanceToBeatControl - 0.5)).toBeLessThan(1e-9);
      expect(result.expectedLoss.shipTreatment).toBeCloseTo(result.expectedLoss.keepControl, 12);
    }
  });

  it.each(CASES)('matches Evan Miller’s closed form ($name)', ({ control, treatment }) => {
    const reference = evanMillerChanceToBeat(control, treatment);
    expect(abs(betaBinomialComparison(control, treatment).chanceToBeatControl - reference)).toBeLessThan(1e-6);
  });

  it.each(CASES)('matches a 200,000-draw Monte Carlo estimate ($name)', ({ control, treatment }) => {
    const result = betaBinomialComparison(control, treatment);
    const mc = monteCarlo(control, treatment, 200_000, 20240607);
    // Monte Carlo standard error of a probability with 200k draws is at most 0.0011.
    expect(abs(result.chanceToBeatControl - mc.chanceToBeat)).toBeLessThan(0.005);
    expect(abs(result.expectedLoss.shipTreatment - mc.loss)).toBeLessThan(4 * mc.lossStandardError + 1e-9);
    // keepControl = E[max(p_t − p_c, 0)] = E[max(p_c − p_t, 0)] + E[p_t − p_c].
    const meanDifference = result.treatment.mean - result.control.mean;
    expect(result.expectedLoss.keepControl).toBeCloseTo(result.expectedLoss.shipTreatment + meanDifference, 12);
  });

  it('puts the relative uplift interval where the simulated ratio lies once counts are large', () => {
    for (const { control, treatment } of CASES.slice(3, 4).concat(CASES.slice(1, 2))) {
      const result = betaBinomialComparison(control, treatment);
      const mc = monteCarlo(control, treatment, 200_000, 7);
      const [lower, upper] = result.relativeUplift.credibleInterval;
      expect(abs(lower - mc.upliftQuantiles[0])).toBeLessThan(0.01);
      expect(abs(upper - mc.upliftQuantiles[1])).toBeLessThan(0.01);
      expect(result.relativeUplift.estimate).toBeCloseTo(result.treatment.mean / result.control.mean - 1, 12);
    }
  });

  it('does bounded work at any count (the dashboard computes it per variant on every poll)', () => {
    // Each integrand evaluation costs one Beta CDF (with its density); the quadrature starts with 16 panels of 15 points and
    // halves a panel only while its error is above target, up to a budget of 256 panels (3,840 evaluations).
    // These cases converge in 16–24 panels (240–360 evaluations). A quadrature chasing rounding noise never
    // converges and spends the whole budget (as a relative tolerance of 1e-14 instead of 1e-10 does for most of
    // these cases): at most a quarter of it is allowed here.
    const PANEL = 15;
    for (const { control, treatment } of [
      ...CASES,
      { control: { exposures: 1_000_000, conversions: 31 }, treatment: { exposures: 1_000_000, conversions: 31 } },
    ]) {
      integrandEvaluations = 0;
      betaBinomialComparison(control, treatment);
      expect(integrandEvaluations).toBeGreaterThanOrEqual(16 * PANEL); // the counter does see the quadrature
      expect(integrandEvaluations).toBeLessThanOrEqual(64 * PANEL);
    }
  });

  it('uses the configured prior', () => {
    const result = betaBinomialComparison(
      { exposures: 10, conversions: 2 },
      { exposures: 10, conversions: 2 },
      { prior: { alpha: 2, beta: 8 } },
    );
    expect(result.control).toMatchObject({ alpha: 4, beta: 16, mean: 0.2 });
    const skewed = betaBinomialComparison(
      { exposures: 20, conversions: 4 },
      { exposures: 20, conversions: 9 },
      { prior: { alpha: 3, beta: 5 } },
    );
    const reference = evanMillerLikeWithPrior({ a: 7, b: 21 }, { a: 12, b: 16 });
    expect(abs(skewed.chanceToBeatControl - reference)).toBeLessThan(1e-6);
  });

  it('rejects counts that are not a binomial experiment', () => {
    expect(() => betaBinomialComparison({ exposures: 10, conversions: 11 }, { exposures: 10, conversions: 1 })).toThrow(
      RangeError,
    );
    expect(() => betaBinomialComparison({ exposures: -1, conversions: 0 }, { exposures: 10, conversions: 1 })).toThrow(
      RangeError,
    );
  });
});

/** Evan Miller's sum for arbitrary integer posterior parameters (α_c, β_c), (α_t, β_t). */
function evanMillerLikeWithPrior(c: { a: number; b: number }, t: { a: number; b: number }): number {
  let total = 0;
  for (let i = 0; i < t.a; i++) {
    total += exp(logBeta(c.a + i, c.b + t.b) - log(t.b + i) - logBeta(1 + i, t.b) - logBeta(c.a, c.b));
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------
// Sample ratio mismatch
// ---------------------------------------------------------------------------------------------------------

describe('srmCheck', () => {
  it('matches the chi-square distribution with one degree of freedom: p = 2(1 − Φ(√χ²))', () => {
    const result = srmCheck([5000, 5200], [1, 1]);
    expect(result.statistic).toBeCloseTo((100 * 100 * 2) / 5100, 10);
    expect(result.degreesOfFreedom).toBe(1);
    const reference = 2 * (1 - standardNormalCdf(sqrt(result.statistic)));
    expect(reference).toBeCloseTo(0.04767, 4);
    expect(abs(result.pValue - reference)).toBeLessThan(1e-10);
    expect(result.mismatch).toBe(false);
  });

  it('matches the chi-square distribution with two degrees of freedom: p = exp(−χ²/2)', () => {
    const clear = srmCheck([1000, 1030, 985], [1, 1, 1]);
    expect(clear.degreesOfFreedom).toBe(2);
    expect(clear.statistic).toBeCloseTo(1050 / 1005, 10);
    expect(clear.pValue).toBeCloseTo(exp(-clear.statistic / 2), 12);
    expect(clear.mismatch).toBe(false);

    const broken = srmCheck([1000, 1100, 900], [1, 1, 1]);
    expect(broken.statistic).toBeCloseTo(20, 10);
    expect(broken.pValue / exp(-10)).toBeCloseTo(1, 10);
    expect(broken.mismatch).toBe(true);
  });

  it('flags a mismatch below p = 0.001 and respects unequal splits', () => {
    const skewed = srmCheck([5000, 5400], [1, 1]);
    expect(skewed.pValue).toBeLessThan(0.001);
    expect(skewed.mismatch).toBe(true);
    expect(skewed.threshold).toBe(0.001);

    const weighted = srmCheck([2000, 1000], [2, 1]);
    expect(weighted.statistic).toBe(0);
    expect(weighted.pValue).toBe(1);
    expect(weighted.expected).toEqual([2000, 1000]);
    expect(srmCheck([0, 0], [1, 1]).pValue).toBe(1);
    expect(srmCheck([10, 5], [1, 0]).mismatch).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Multiple comparisons and intervals
// ---------------------------------------------------------------------------------------------------------

describe('holmBonferroni', () => {
  it('matches hand-computed adjusted p-values', () => {
    // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.06, 0.04·1) = 0.06.
    const adjusted = holmBonferroni([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((expected, i) => expect(adjusted[i]).toBeCloseTo(expected, 12));
    // 0.2·2 = 0.4, then max(0.4, 0.5) = 0.5; capped at 1.
    const pair = holmBonferroni([0.5, 0.2]);
    expect(pair[0]).toBeCloseTo(0.5, 12);
    expect(pair[1]).toBeCloseTo(0.4, 12);
    expect(holmBonferroni([0.7, 0.6])).toEqual([1, 1]);
    expect(holmBonferroni([0.03])).toEqual([0.03]);
    expect(bonferroniAlpha(0.05, 4)).toBeCloseTo(0.0125, 12);
  });
});

describe('wilsonInterval', () => {
  it.each([
    [{ exposures: 100, conversions: 10 }, 0.0552, 0.1744],
    [{ exposures: 100, conversions: 50 }, 0.4038, 0.5962],
    [{ exposures: 10, conversions: 0 }, 0, 0.2775],
    [{ exposures: 1000, conversions: 1 }, 0.0002, 0.0056],
  ])('%j → [%d, %d]', (counts, lower, upper) => {
    const { interval } = wilsonInterval(counts);
    expect(interval[0]).toBeCloseTo(lower, 4);
    expect(interval[1]).toBeCloseTo(upper, 4);
  });

  it('is the whole range when nothing was exposed', () => {
    expect(wilsonInterval({ exposures: 0, conversions: 0 })).toEqual({ rate: 0, interval: [0, 1], level: 0.95 });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Sequential test under repeated looks
// ---------------------------------------------------------------------------------------------------------

describe('sequentialTest (mSPRT)', () => {
  const EXPERIMENTS = 2_000;
  const LOOKS = 50;
  const PER_LOOK = 200; // exposures per arm added between looks: 10,000 per arm at the last look
  const ALPHA = 0.05;
  // 2,000 runs: the standard error of a 5 % rate is 0.49 %, so 0.06 is two standard errors above α.
  const MONTE_CARLO_CEILING = 0.06;

  it('declares a difference in at most α of A/A experiments looked at 50 times; a peeked z-test does not', () => {
    const random = seededRandom(42);
    const rate = 0.1;
    let sequentialFalse = 0;
    let sequentialFalseWinners = 0;
    let naiveFalse = 0;
    let pValueIncreases = 0;
    for (let e = 0; e < EXPERIMENTS; e++) {
      const control = { exposures: 0, conversions: 0 };
      const treatment = { exposures: 0, conversions: 0 };
      let previous: number | undefined;
      let sequentialDeclared = false;
      let declaredWinner = false;
      let naiveDeclared = false;
      for (let look = 0; look < LOOKS; look++) {
        control.exposures += PER_LOOK;
        control.conversions += binomialSample(PER_LOOK, rate, random);
        treatment.exposures += PER_LOOK;
        treatment.conversions += binomialSample(PER_LOOK, rate, random);
        const result = sequentialTest(
          control,
          treatment,
          previous === undefined ? {} : { previous: { pValue: previous } },
        );
        if (result.pValue > (previous ?? 1)) pValueIncreases++;
        previous = result.pValue;
        if (result.pValue <= ALPHA && !sequentialDeclared) {
          sequentialDeclared = true;
          declaredWinner = result.difference > 0;
        }
        // The fixed-horizon two-proportion z-test, misused by looking at every step.
        const pooled = (control.conversions + treatment.conversions) / (control.exposures + treatment.exposures);
        const se = sqrt(pooled * (1 - pooled) * (1 / control.exposures + 1 / treatment.exposures));
        const z = (treatment.conversions / treatment.exposures - control.conversions / control.exposures) / se;
        if (abs(z) > 1.959964) naiveDeclared = true;
      }
      if (sequentialDeclared) sequentialFalse++;
      if (declaredWinner) sequentialFalseWinners++;
      if (naiveDeclared) naiveFalse++;
    }
    const sequentialRate = sequentialFalse / EXPERIMENTS;
    const naiveRate = naiveFalse / EXPERIMENTS;
    console.log(
      `A/A, ${EXPERIMENTS} experiments × ${LOOKS} looks: mSPRT declared a difference in ${(100 * sequentialRate).toFixed(2)}% ` +
        `(a winner in ${((100 * sequentialFalseWinners) / EXPERIMENTS).toFixed(2)}%), the peeked z-test in ${(100 * naiveRate).toFixed(2)}%`,
    );
    expect(pValueIncreases).toBe(0); // the running minimum never goes up
    expect(sequentialRate).toBeLessThanOrEqual(MONTE_CARLO_CEILING);
    expect(naiveRate).toBeGreaterThan(MONTE_CARLO_CEILING * 2);
  });

  it('keeps the true difference inside the confidence sequence at every look in ≥ 1 − α of experiments', () => {
    const random = seededRandom(7);
    const experiments = 500;
    const [rateC, rateT] = [0.1, 0.12];
    let missed = 0;
    for (let e = 0; e < experiments; e++) {
      const control = { exposures: 0, conversions: 0 };
      const treatment = { exposures: 0, conversions: 0 };
      let everMissed = false;
      for (let look = 0; look < LOOKS; look++) {
        control.exposures += PER_LOOK;
        control.conversions += binomialSample(PER_LOOK, rateC, random);
        treatment.exposures += PER_LOOK;
        treatment.conversions += binomialSample(PER_LOOK, rateT, random);
        const [lower, upper] = sequentialTest(control, treatment).confidenceSequence;
        if (rateT - rateC < lower || rateT - rateC > upper) everMissed = true;
      }
      if (everMissed) missed++;
    }
    // 500 runs: standard error of a 5 % rate is 1 %; allow two.
    expect(missed / experiments).toBeLessThanOrEqual(0.07);
  });

  it('agrees with itself: p ≤ α exactly when the confidence sequence excludes 0', () => {
    for (const [c, t] of [
      [120, 160],
      [120, 150],
      [120, 140],
      [500, 560],
    ] as const) {
      const result = sequentialTest({ exposures: 1000, conversions: c }, { exposures: 1000, conversions: t });
      const excludesZero = result.confidenceSequence[0] > 0 || result.confidenceSequence[1] < 0;
      expect(result.pValueAtThisLook <= 0.05).toBe(excludesZero);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------------------

describe('decide', () => {
  const control = { id: 'control', exposures: 20_000, conversions: 2_000 };

  it('declares a real 20 % uplift the winner and a 20 % drop the loser', () => {
    const verdict = decide({
      control,
      variants: [
        { id: 'better', exposures: 20_000, conversions: 2_400 },
        { id: 'worse', exposures: 20_000, conversions: 1_600 },
      ],
      runtimeDays: 14,
    });
    const [better, worse] = verdict.variants;
    expect(better).toMatchObject({ variantId: 'better', decision: 'winner', smallSample: false });
    expect(better!.reason).toMatch(/beats control/);
    expect(better!.chanceToBeatControl).toBeGreaterThan(0.999);
    expect(better!.relativeUplift.estimate).toBeCloseTo(0.2, 2);
    expect(better!.sequential.adjustedPValue).toBeLessThanOrEqual(0.05);
    expect(worse).toMatchObject({ variantId: 'worse', decision: 'loser' });
    expect(worse!.reason).toMatch(/loses to control/);
    expect(verdict.method.comparisons).toBe(2);
    expect(verdict.variants.every((v) => v.chanceToBeatThreshold === 1 - 0.05 / 2)).toBe(true);
  });

  it('finds a simulated 20 % uplift while the A/A arm keeps running', () => {
    const random = seededRandom(99);
    const arms = [
      { id: 'control', rate: 0.05, exposures: 0, conversions: 0 },
      { id: 'uplift', rate: 0.06, exposures: 0, conversions: 0 },
      { id: 'same', rate: 0.05, exposures: 0, conversions: 0 },
    ];
    const previous: Record<string, number> = {};
    let day = 0;
    let winnerDay: number | null = null;
    let last = null as ReturnType<typeof decide> | null;
    while (day < 28 && winnerDay === null) {
      day++;
      for (const arm of arms) {
        arm.exposures += 1_000;
        arm.conversions += binomialSample(1_000, arm.rate, random);
      }
      const [c, ...vs] = arms.map(({ id, exposures, conversions }) => ({ id, exposures, conversions }));
      last = decide({ control: c!, variants: vs, runtimeDays: day, previousPValues: previous });
      for (const v of last.variants) previous[v.variantId] = v.sequential.pValue;
      if (last.variants[0]!.decision === 'winner') winnerDay = day;
    }
    expect(winnerDay).not.toBeNull();
    expect(winnerDay!).toBeGreaterThanOrEqual(7);
    expect(last!.variants[1]!.decision).toBe('keep_running');
  });

  it('never names a winner on a sample ratio mismatch', () => {
    const verdict = decide({
      control,
      variants: [{ id: 'v', exposures: 21_500, conversions: 2_800 }],
      runtimeDays: 14,
    });
    expect(verdict.srm.mismatch).toBe(true);
    expect(verdict.variants[0]!.decision).toBe('inconclusive');
    expect(verdict.variants[0]!.reason).toMatch(/^sample ratio mismatch/);
    // The same counts with the split they were configured for are fine.
    const planned = decide({
      control,
      variants: [{ id: 'v', exposures: 21_500, conversions: 2_800 }],
      expectedWeights: [20_000, 21_500],
      runtimeDays: 14,
    });
    expect(planned.variants[0]!.decision).toBe('winner');
  });

  it('labels small samples and waits for the minimum sample, then gives up at the maximum runtime', () => {
    const small = {
      control: { id: 'c', exposures: 80, conversions: 5 },
      variants: [{ id: 'v', exposures: 90, conversions: 12 }],
    };
    const early = decide({ ...small, runtimeDays: 3 });
    expect(early.variants[0]).toMatchObject({ decision: 'keep_running', smallSample: true });
    expect(early.variants[0]!.reason).toMatch(/small sample: needs at least 100 exposures and 10 conversions per arm/);
    expect(early.control.smallSample).toBe(true);
    expect(decide({ ...small, runtimeDays: 28 }).variants[0]!.decision).toBe('inconclusive');
    const stricter = decide(
      { control, variants: [{ id: 'v', exposures: 20_000, conversions: 2_400 }], runtimeDays: 14 },
      { minConversionsPerArm: 2_500 },
    );
    expect(stricter.variants[0]).toMatchObject({ decision: 'keep_running', smallSample: true });
  });

  it('waits for the minimum runtime even when the difference is already significant', () => {
    const verdict = decide({ control, variants: [{ id: 'v', exposures: 20_000, conversions: 2_400 }], runtimeDays: 3 });
    expect(verdict.variants[0]!.decision).toBe('keep_running');
    expect(verdict.variants[0]!.reason).toMatch(/minimum runtime not reached \(3 of 7 days\); already significant/);
  });

  it('keeps running without significance, and is inconclusive at the maximum runtime', () => {
    const flat = { control, variants: [{ id: 'v', exposures: 20_000, conversions: 2_020 }] };
    const running = decide({ ...flat, runtimeDays: 10 });
    expect(running.variants[0]!.decision).toBe('keep_running');
    expect(running.variants[0]!.reason).toMatch(/no significant difference yet/);
    const done = decide({ ...flat, runtimeDays: 28 });
    expect(done.variants[0]!.decision).toBe('inconclusive');
    expect(done.variants[0]!.reason).toMatch(/no significant difference after 28 days/);
  });

  it('keeps the running minimum p-value given by the previous look', () => {
    const flat = { control, variants: [{ id: 'v', exposures: 20_000, conversions: 2_100 }] };
    const fresh = decide({ ...flat, runtimeDays: 10 });
    const remembered = decide({ ...flat, runtimeDays: 10, previousPValues: { v: 0.001 } });
    expect(fresh.variants[0]!.sequential.pValue).toBeGreaterThan(0.05);
    expect(remembered.variants[0]!.sequential.pValue).toBe(0.001);
    expect(remembered.variants[0]!.decision).toBe('winner');
  });

  it('states the method and its defaults', () => {
    const verdict = decide({
      control,
      variants: [{ id: 'v', exposures: 20_000, conversions: 2_020 }],
      runtimeDays: 10,
    });
    expect(verdict.method).toMatchObject({
      alpha: 0.05,
      comparisons: 1,
      minExposuresPerArm: 100,
      minConversionsPerArm: 10,
      minRuntimeDays: 7,
      maxRuntimeDays: 28,
      srmThreshold: 0.001,
      prior: { alpha: 1, beta: 1 },
      tuningSampleSize: 5_000,
    });
    expect(verdict.variants[0]!.variant.interval[0]).toBeLessThan(0.101);
  });
});
