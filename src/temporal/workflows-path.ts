import { fileURLToPath } from 'node:url';

/** The worker's `workflowsPath`: the file that exports every workflow. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/**
 * Workflow interceptor modules bundled with the workflows (`workflowInterceptorModules` of every bundle, the
 * worker's `interceptors.workflowModules` when it bundles at boot): trace propagation, inert unless a workflow
 * was started by a traced client.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  fileURLToPath(new URL('./workflow-tracing-interceptors.ts', import.meta.url)),
];
