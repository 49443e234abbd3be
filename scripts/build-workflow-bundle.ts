/**
 * `npm run build` (second half): bundles the workflows once for production, so the worker loads
 * `dist/workflow-bundle.js` (WORKFLOW_BUNDLE_PATH) instead of running webpack at every boot. The bundle must be
 * built with the same @temporalio/worker version that runs it; both come from this package-lock.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../src/temporal/workflows-path.ts';

const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
const { code } = await bundleWorkflowCode({
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
  logger: new DefaultLogger('WARN'),
});
await fs.mkdir(path.dirname(out), { recursive: true });
await fs.writeFile(out, code);
console.log(`Wrote ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
