/** Counts for one arm of an experiment over the analysed window. */
export interface ArmCounts {
  /** Distinct units exposed to the arm (sessions that saw the variant). */
  exposures: number;
  /** Units that converted at least once (each unit counts once, so conversions ≤ exposures). */
  conversions: number;
}

/** A closed interval `[lower, upper]`. */
export type Interval = readonly [lower: number, upper: number];

/** Throws when counts cannot describe a binomial experiment; every public function checks its inputs. */
export function assertArmCounts(counts: ArmCounts, label: string): void {
  const { exposures, conversions } = counts;
  if (!Number.isInteger(exposures) || exposures < 0) {
    throw new RangeError(`${label}: exposures must be a non-negative integer (got ${exposures})`);
  }
  if (!Number.isInteger(conversions) || conversions < 0 || conversions > exposures) {
    throw new RangeError(`${label}: conversions must be an integer in [0, exposures] (got ${conversions})`);
  }
}
