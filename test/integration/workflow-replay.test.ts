/**
 * Workflow code changes must not break runs already in flight: a worker deployed mid-run replays each open
 * run's history against the new code, and any difference in the commands it issues fails that run's workflow
 * tasks until the old code returns. These tests replay recorded histories against the workflows as they are
 * now:
 *   - histories recorded before bookkeeping became local activities (`test/fixtures/workflow-histories`,
 *     recorded with the workflows of that time): the `local-bookkeeping` patch keeps them replaying;
 *   - histories recorded now, by the current code, for each job kind the fixtures cover.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { temporal as TemporalProto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import { type WorkspaceScope, workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { installQuietTemporalRuntime, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { localActivityMarkers, scheduledActivities } from '../support/workflow-history.ts';
import { pollUntil } from '../support/poll.ts';

const { temporal } = (await import('@temporalio/proto')).default;
const FIXTURES = path.resolve('test/fixtures/workflow-histories');

type History = TemporalProto.api.history.v1.IHistory;

function replay(history: History, workflowId: string): Promise<void> {
  installQuietTemporalRuntime();
  return Worker.runReplayHistory(
    { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } },
    history,
    workflowId,
  );
}

async function fixture(file: string): Promise<History> {
  return temporal.api.history.v1.History.decode(await fs.readFile(path.join(FIXTURES, file)));
}

/** The activities a history ran locally and scheduled on the task queue, by type. */
function activityKinds(history: History): { local: string[]; scheduled: string[] } {
  const events = history.events ?? [];
  return { local: localActivityMarkers(events).map((marker) => marker.type), scheduled: scheduledActivities(events) };
}

describe('histories recorded before bookkeeping became local activities', () => {
  it.each([
    ['campaign generation', 'campaign-generation-before-local-bookkeeping.binpb'],
    ['self-test job', 'selftest-before-local-bookkeeping.binpb'],
    ['still render', 'render-before-local-bookkeeping.binpb'],
  ])('%s: replays on the current workflows', async (_label, file) => {
    const history = await fixture(file);
    // The recording really is from before: its bookkeeping was scheduled on the task queue.
    const kinds = activityKinds(history);
    expect(kinds.local).toEqual([]);
    expect(kinds.scheduled).toContain('markJobRunning');
    expect(kinds.scheduled).toContain('completeJob');
    await expect(replay(history, `fixture-${file}`)).resolves.toBeUndefined();
  });
});

describe('histories recorded by the current code', () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  const scope = (): WorkspaceScope => workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator);

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: true, label: 'replay' });
    tenant = await createTenant(platform.container, { credits: 1000 });
  });

  afterAll(async () => {
    await platform.close();
  });

  async function historyOf(workflowId: string, runId: string): Promise<History> {
    const handle = platform.container.temporal.client.workflow.getHandle(workflowId, runId);
    await handle.result();
    return handle.fetchHistory();
  }

  it('campaign generation: bookkeeping is local, the steps are scheduled, and the history replays', async () => {
    const { generation, jobs } = platform.container.services;
    const args = { intent: 'Launch our linen shirts for a hot summer', variantCount: 1, includeImages: false };
    const quoted = await generation.start(scope(), args);
    if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
    const started = await generation.start(scope(), { ...args, quoteId: quoted.quote.id });
    if (started.status !== 'started') throw new Error(`expected started, got ${started.status}`);
    await pollUntil(
      () => jobs.get(scope(), started.job.id),
      (job) => isTerminalJobStatus(job.status),
      { timeoutMs: 120_000, intervalMs: 100, timeoutMessage: (job) => `job ${job.id} still ${job.status}` },
    );
    const history = await historyOf(started.job.workflowId, started.job.runId!);
    const kinds = activityKinds(history);
    expect(kinds.scheduled).toEqual(['runGenerationStep', 'runGenerationStep', 'runGenerationStep']);
    expect(kinds.local).toEqual(
      expect.arrayContaining(['markJobRunning', 'reportJobProgress', 'captureJobCredits', 'completeJob']),
    );
    await expect(replay(history, started.job.workflowId)).resolves.toBeUndefined();
  });

  it('self-test job: replays', async () => {
    const { job } = await platform.container.services.jobs.start(scope(), {
      kind: 'selftest',
      workflowType: 'selftestWorkflow',
      businessKey: 'replay',
      input: { steps: 2, stepMs: 10 },
      summary: 'replay',
    });
    const history = await historyOf(job.workflowId, job.runId!);
    expect(activityKinds(history)).toEqual({
      local: ['markJobRunning', 'completeJob'],
      scheduled: ['runSelftestSteps'],
    });
    await expect(replay(history, job.workflowId)).resolves.toBeUndefined();
  });
});
