import { fileURLToPath } from 'node:url';

/** The worker's `workflowsPath`: the file that exports every workflow. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
