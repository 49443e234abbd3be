/**
 * Once per run that selects the `test/workflows` tier: find the already-built Temporal CLI (the same lookup
 * as the services set-up: TEMPORAL_CLI_PATH, PATH, then TOOLS_DIR) and bundle the workflows once, with the
 * test-only timer interceptor. Each test file then starts its own in-memory dev server from that CLI with
 * `TestWorkflowEnvironment.createLocal` (see `workflow-env.ts`). No database, no browser.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { locateTemporalCli } from '../../src/dev/temporal-cli.ts';
import { WORKFLOWS_PATH } from '../../src/temporal/workflows-path.ts';
import { addTeardown } from './global-state.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEST_DATA = path.join(ROOT, '.data', 'test');

export default async function workflowsGlobalSetup(): Promise<void> {
  const started = Date.now();
  await fs.mkdir(TEST_DATA, { recursive: true });
  process.env.TEST_TEMPORAL_CLI ??= await locateTemporalCli({
    toolsDir: path.resolve(ROOT, process.env.TOOLS_DIR ?? '.tools'),
    searchPath: process.env.PATH,
    onLog: (line) => process.stdout.write(`[workflows-setup] ${line}\n`),
    cliPath: process.env.TEMPORAL_CLI_PATH,
  });
  const bundlePath = path.join(TEST_DATA, `workflow-bundle-timers-${randomBytes(4).toString('hex')}.js`);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [path.join(import.meta.dirname, 'workflow-timers.ts')],
    logger: new DefaultLogger('WARN'),
  });
  await fs.writeFile(bundlePath, code);
  process.env.TEST_WORKFLOW_TIMERS_BUNDLE = bundlePath;
  addTeardown(() => fs.rm(bundlePath, { force: true }));
  process.stdout.write(`\n[workflows-setup] Temporal CLI and workflow bundle ready in ${Date.now() - started} ms\n`);
}
