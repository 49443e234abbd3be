/**
 * Adaptive Gauss–Kronrod quadrature (the 7-point Gauss / 15-point Kronrod pair of QUADPACK's QK15,
 * Piessens et al. 1983). The 15-point sum is the estimate; its difference from the embedded 7-point Gauss
 * sum is the error estimate, and panels whose error is too large are halved. This is a quadrature rule,
 * not a special function: the integrands (Beta densities and CDFs) come from the statistics library.
 *
 * The integrand is vector-valued so that several integrals sharing the expensive evaluations (one Beta CDF
 * serves both the chance to beat and the expected loss) are computed in one pass.
 */

// Values rounded to the nearest double.
// Abscissae of the 15-point Kronrod rule on [-1, 1] (positive half, descending; the last is the centre).
// Odd indices (1, 3, 5, 7) are the 7-point Gauss abscissae.
const KRONROD_NODES = [
  0.9914553711208126, 0.9491079123427585, 0.8648644233597691, 0.7415311855993945, 0.5860872354676911,
  0.4058451513773972, 0.20778495500789848, 0,
] as const;
const KRONROD_WEIGHTS = [
  0.022935322010529224, 0.06309209262997856, 0.10479001032225019, 0.14065325971552592, 0.1690047266392679,
  0.19035057806478542, 0.20443294007529889, 0.20948214108472782,
] as const;
// Weights of the 7-point Gauss rule for KRONROD_NODES[1], [3], [5] and the centre [7].
const GAUSS_WEIGHTS = [0.1294849661688697, 0.27970539148927664, 0.3818300505051189, 0.4179591836734694] as const;

export interface QuadratureOptions {
  /** Number of equal panels the interval is cut into before adapting; guarantees a narrow peak is seen. */
  initialPanels?: number;
  /** Absolute error target for the whole interval, shared among panels in proportion to their width. */
  absoluteTolerance?: number;
  /**
   * Error target relative to the largest component of the first (unrefined) estimate; the effective
   * target is the larger of the absolute and the relative one. Lets unnormalised integrands of any scale
   * stop at the precision their evaluation actually has.
   */
  relativeTolerance?: number;
  /** Deepest halving of a panel; the estimate of the finest panel is kept past it. */
  maxDepth?: number;
  /** Budget of panel evaluations (15 points each); once spent, remaining panels are accepted as they are. */
  maxPanels?: number;
}

interface PanelEstimate {
  kronrod: number[];
  error: number;
}

function estimatePanel(f: (x: number) => number[], from: number, to: number, size: number): PanelEstimate {
  const centre = (from + to) / 2;
  const halfWidth = (to - from) / 2;
  const kronrod = new Array<number>(size).fill(0);
  const gauss = new Array<number>(size).fill(0);
  const centreValues = f(centre);
  for (let j = 0; j < size; j++) {
    const value = centreValues[j] ?? 0;
    kronrod[j] = KRONROD_WEIGHTS[7] * value;
    gauss[j] = GAUSS_WEIGHTS[3] * value;
  }
  for (let i = 0; i < 7; i++) {
    const offset = halfWidth * KRONROD_NODES[i]!;
    const left = f(centre - offset);
    const right = f(centre + offset);
    for (let j = 0; j < size; j++) {
      const pair = (left[j] ?? 0) + (right[j] ?? 0);
      kronrod[j]! += KRONROD_WEIGHTS[i]! * pair;
      if (i % 2 === 1) gauss[j]! += GAUSS_WEIGHTS[(i - 1) / 2]! * pair;
    }
  }
  let error = 0;
  for (let j = 0; j < size; j++) {
    kronrod[j]! *= halfWidth;
    error = Math.max(error, Math.abs(kronrod[j]! - gauss[j]! * halfWidth));
  }
  return { kronrod, error };
}

/**
 * ∫_from^to f(x) dx for every component of `f`. `size` is the number of components `f` returns.
 * Panels never evaluate `f` at their end points, so integrable end-point singularities are tolerated.
 */
export function integrate(
  f: (x: number) => number[],
  from: number,
  to: number,
  size: number,
  options: QuadratureOptions = {},
): number[] {
  const initialPanels = options.initialPanels ?? 16;
  const maxDepth = options.maxDepth ?? 24;
  const maxPanels = options.maxPanels ?? 256;
  const total = new Array<number>(size).fill(0);
  if (!(to > from)) return total;
  const width = to - from;

  const pending: Array<{ from: number; to: number; depth: number; estimate: PanelEstimate }> = [];
  for (let p = 0; p < initialPanels; p++) {
    const a = from + (width * p) / initialPanels;
    const b = p === initialPanels - 1 ? to : from + (width * (p + 1)) / initialPanels;
    pending.push({ from: a, to: b, depth: 0, estimate: estimatePanel(f, a, b, size) });
  }
  let scale = 0;
  for (let j = 0; j < size; j++) {
    scale = Math.max(scale, Math.abs(pending.reduce((sum, panel) => sum + panel.estimate.kronrod[j]!, 0)));
  }
  const tolerance = Math.max(options.absoluteTolerance ?? 1e-10, (options.relativeTolerance ?? 0) * scale);
  let panelsEvaluated = pending.length;
  while (pending.length > 0) {
    const panel = pending.pop()!;
    const allowed = (tolerance * (panel.to - panel.from)) / width;
    if (panel.estimate.error <= allowed || panel.depth >= maxDepth || panelsEvaluated >= maxPanels) {
      for (let j = 0; j < size; j++) total[j]! += panel.estimate.kronrod[j]!;
      continue;
    }
    const middle = (panel.from + panel.to) / 2;
    panelsEvaluated += 2;
    pending.push(
      { from: panel.from, to: middle, depth: panel.depth + 1, estimate: estimatePanel(f, panel.from, middle, size) },
      { from: middle, to: panel.to, depth: panel.depth + 1, estimate: estimatePanel(f, middle, panel.to, size) },
    );
  }
  return total;
}
