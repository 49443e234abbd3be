/** Every workflow the worker registers. This file is the worker's `workflowsPath`. */
export { selftestWorkflow } from './selftest.ts';
