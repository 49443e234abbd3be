/** Every workflow the worker registers. This file is the worker's `workflowsPath`. */
export { republishWorkflow } from './republish.ts';
export { selftestWorkflow } from './selftest.ts';
