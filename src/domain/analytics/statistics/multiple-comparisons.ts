/**
 * Corrections for comparing several variants with one control.
 *
 * Holm–Bonferroni (Holm 1979) controls the family-wise error rate for any dependence between the tests,
 * which matters here because every comparison shares the control arm. Adjusted p-values: sort ascending
 * p_(1) ≤ … ≤ p_(m); p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) · p_(j)); reject H_(i) when p̃_(i) ≤ α.
 *
 * Applied to always-valid p-values it stays valid over time: Holm can reject a true null only if the
 * smallest true-null p-value falls to α/m₀ (m₀ = number of true nulls), and each always-valid p-value
 * crosses α/m₀ at any look with probability ≤ α/m₀, so P(any false rejection, ever) ≤ m₀ · α/m₀ = α.
 */

export function holmBonferroni(pValues: readonly number[]): number[] {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holmBonferroni: p-values must be in [0, 1] (got ${p})`);
  }
  const m = pValues.length;
  const order = pValues.map((p, index) => ({ p, index })).sort((a, b) => a.p - b.p || a.index - b.index);
  const adjusted = new Array<number>(m).fill(1);
  let runningMax = 0;
  order.forEach(({ p, index }, rank) => {
    runningMax = Math.max(runningMax, Math.min(1, (m - rank) * p));
    adjusted[index] = runningMax;
  });
  return adjusted;
}

/**
 * Bonferroni-adjusted per-comparison level α/m. Used for the Bayesian read-out (a variant "clearly beats
 * control" when its chance to beat control is ≥ 1 − α/m) and for the simultaneous confidence sequences; the
 * decision itself uses Holm on the sequential p-values, which is never less powerful than Bonferroni.
 */
export function bonferroniAlpha(alpha: number, comparisons: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError('alpha must be in (0, 1)');
  return alpha / Math.max(1, comparisons);
}
