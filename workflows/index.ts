/** Every workflow the worker registers. This file is the worker's `workflowsPath`. */
export { republishWorkflow } from './republish.ts';
export { selftestWorkflow } from './selftest.ts';
export { campaignGenerationWorkflow } from './campaign-generation.ts';
export { renderWorkflow } from './render.ts';
export { filmCommissionWorkflow } from './film-commission.ts';
export { productImportWorkflow } from './product-import.ts';
export { analyticsRollupWorkflow } from './analytics-rollup.ts';
export { channelPostWorkflow } from './channel-post.ts';
export { channelMetricsWorkflow } from './channel-metrics.ts';
