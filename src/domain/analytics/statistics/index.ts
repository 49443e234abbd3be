/**
 * Experiment statistics: pure functions, no I/O. See each module's header for the formulas and sources.
 */
export { betaBinomialComparison, betaPosterior, UNIFORM_PRIOR } from './beta-binomial.ts';
export type { BetaBinomialComparison, BetaBinomialOptions, BetaPosterior, BetaPrior } from './beta-binomial.ts';
export { decide, describeMethod, DEFAULT_DECISION_OPTIONS, EXPERIMENT_DECISIONS } from './decision.ts';
export type {
  ArmSummary,
  DecisionInput,
  DecisionOptions,
  ExperimentArm,
  ExperimentDecision,
  ExperimentVerdict,
  MethodDescription,
  VariantVerdict,
} from './decision.ts';
export { bonferroniAlpha, holmBonferroni } from './multiple-comparisons.ts';
export { DEFAULT_TUNING_SAMPLE_SIZE, sequentialTest, tunedMixingVariance } from './sequential.ts';
export type { SequentialTestOptions, SequentialTestResult } from './sequential.ts';
export { DEFAULT_SRM_THRESHOLD, srmCheck } from './srm.ts';
export type { SrmResult } from './srm.ts';
export type { ArmCounts, Interval } from './types.ts';
export { wilsonInterval } from './wilson.ts';
export type { RateEstimate } from './wilson.ts';
