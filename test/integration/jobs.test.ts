/**
 * The job mechanism end to end on the real Temporal server with a real worker: a Job row plus a workflow under
 * a business id; a repeated start returns the running job; status reads come from the row; cancellation;
 * a later start on the same key after the first job ended creates a new job; a job whose workflow could not be
 * started is failed, not left queued.
 */
import { Client, Connection } from '@temporalio/client';
import { Job, JobStep } from '../../src/domain/jobs/job.entity.ts';
import { acrossWorkspaces, type WorkspaceScope, workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import { createJobsService } from '../../src/domain/jobs/jobs.service.ts';
import { createTemporalJobLauncher } from '../../src/temporal/temporal-job-launcher.ts';
import { JobKindKey, WorkspaceIdKey } from '../../src/temporal/search-attributes.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { freePort } from '../support/global-setup.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';

let platform: TestPlatform;
let tenant: Tenant;

function scope(workspaceId = tenant.workspaceId): WorkspaceScope {
  return workspaceScope(platform.container.orm.em, workspaceId, actors.operator);
}

async function waitForJob(jobId: string, predicate: (job: Job) => boolean, timeoutMs = 60_000): Promise<Job> {
  return pollUntil(() => platform.container.services.jobs.get(scope(), jobId), predicate, {
    timeoutMs,
    intervalMs: 100,
    timeoutMessage: (job) => `job ${jobId} stuck in ${job.status}`,
  });
}

function selftest(key: string, steps: number, stepMs: number) {
  return platform.container.services.jobs.start(scope(), {
    kind: 'selftest',
    workflowType: 'selftestWorkflow',
    businessKey: key,
    input: { steps, stepMs },
    summary: `test ${key}`,
  });
}

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'jobs' });
  tenant = await createTenant(platform.container);
});

afterAll(async () => {
  await platform.close();
});

it('runs a job to completion, mirroring status, progress and step outputs in its row', async () => {
  const { job, reused } = await selftest('happy', 3, 50);
  expect(reused).toBe(false);
  expect(job.workflowId).toBe(`selftest:${tenant.workspaceId}:happy`);
  expect(job.runId).toMatch(/^[0-9a-f-]{36}$/);
  const done = await waitForJob(job.id, (j) => isTerminalJobStatus(j.status));
  expect(done.status).toBe('succeeded');
  expect(done.progress).toEqual({ fraction: 1 });
  expect(done.result).toEqual({ steps: 3, finishedOnAttempt: 1, resumedFromStep: 0 });
  expect(done.startedAt).toBeInstanceOf(Date);
  expect(done.finishedAt).toBeInstanceOf(Date);
  const steps = await acrossWorkspaces(platform.container.orm.em).find(
    JobStep,
    { job: job.id },
    { orderBy: { name: 'asc' } },
  );
  expect(steps.map((s) => [s.name, s.attempt])).toEqual([
    ['step-1', 1],
    ['step-2', 1],
    ['step-3', 1],
  ]);
  // The row turns terminal in the workflow's last activity, a moment before the workflow itself closes.
  const handle = platform.container.temporal.client.workflow.getHandle(job.workflowId, job.runId!);
  await handle.result();
  const description = await handle.describe();
  expect(description.status.name).toBe('COMPLETED');
  expect(description.typedSearchAttributes.get(WorkspaceIdKey)).toBe(tenant.workspaceId);
  expect(description.typedSearchAttributes.get(JobKindKey)).toBe('selftest');
  expect(await description.staticSummary()).toBe('test happy');
});

it('returns the running job when the same job is started again', async () => {
  const first = await selftest('dedupe', 4, 400);
  const starts = await Promise.all([selftest('dedupe', 4, 400), selftest('dedupe', 99, 1), selftest('dedupe', 1, 1)]);
  for (const again of starts) {
    expect(again.reused).toBe(true);
    expect(again.job.id).toBe(first.job.id);
    expect(again.job.runId).toBe(first.job.runId);
  }
  const rows = await acrossWorkspaces(platform.container.orm.em).count(Job, { workflowId: first.job.workflowId });
  expect(rows).toBe(1);
  const done = await waitForJob(first.job.id, (j) => isTerminalJobStatus(j.status));
  expect(done.result).toMatchObject({ steps: 4 });
});

it('starts a new job on the same key once the previous one has ended', async () => {
  const first = await selftest('sequential', 1, 10);
  await waitForJob(first.job.id, (j) => isTerminalJobStatus(j.status));
  const second = await selftest('sequential', 2, 10);
  expect(second.reused).toBe(false);
  expect(second.job.id).not.toBe(first.job.id);
  expect(second.job.workflowId).toBe(first.job.workflowId);
  expect(second.job.runId).not.toBe(first.job.runId);
  const done = await waitForJob(second.job.id, (j) => isTerminalJobStatus(j.status));
  expect(done.result).toMatchObject({ steps: 2 });
});

it('cancels a running job cooperatively and records the outcome', async () => {
  const { job } = await selftest('cancel', 50, 200);
  await waitForJob(job.id, (j) => j.status === 'running' && j.progress.fraction > 0);
  const requested = await platform.container.services.jobs.requestCancel(scope(), job.id);
  expect(requested.status).toBe('cancel_requested');
  expect(requested.cancelRequestedAt).toBeInstanceOf(Date);
  const done = await waitForJob(job.id, (j) => isTerminalJobStatus(j.status));
  expect(done.status).toBe('cancelled');
  const steps = await acrossWorkspaces(platform.container.orm.em).count(JobStep, { job: job.id });
  expect(steps).toBeLessThan(50);
});

it("answers another workspace's job id exactly like a missing one", async () => {
  const { job } = await selftest('isolated', 1, 10);
  const other = await createTenant(platform.container);
  await expect(platform.container.services.jobs.get(scope(other.workspaceId), job.id)).rejects.toMatchObject({
    code: 'not_found',
    message: `Job ${job.id} was not found`,
  });
  await expect(
    platform.container.services.jobs.get(scope(other.workspaceId), 'job_01J0000000000000000000000'),
  ).rejects.toMatchObject({
    code: 'not_found',
    message: 'Job job_01J0000000000000000000000 was not found',
  });
  await expect(platform.container.services.jobs.requestCancel(scope(other.workspaceId), job.id)).rejects.toMatchObject({
    code: 'not_found',
  });
});

it('marks a job failed when its workflow cannot be started, so the next start on its key is a new job', async () => {
  // A Temporal client for a port nothing listens on: the start fails as it would with the server down.
  const unreachable = new Client({
    // No gRPC retry interceptor: the start fails at once instead of after the client's retries.
    connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: '1s', interceptors: [] }),
    namespace: 'default',
  });
  const offline = createJobsService({ launcher: createTemporalJobLauncher(unreachable, 'nowhere') });
  const request = {
    kind: 'selftest',
    workflowType: 'selftestWorkflow' as const,
    businessKey: 'temporal-down',
    input: { steps: 1, stepMs: 10 },
    summary: 'test temporal-down',
  };
  await expect(offline.start(scope(), request)).rejects.toThrow();
  const [abandoned] = await acrossWorkspaces(platform.container.orm.em).find(Job, {
    workspace: tenant.workspaceId,
    kind: 'selftest',
    subjectId: null,
    workflowId: { $like: '%temporal-down' },
  });
  expect(abandoned).toMatchObject({ status: 'failed', runId: null, error: { code: 'start_failed' } });
  expect(abandoned!.finishedAt).toBeInstanceOf(Date);

  // With Temporal reachable again, the key is free: a new job starts and runs.
  const again = await platform.container.services.jobs.start(scope(), request);
  expect(again.reused).toBe(false);
  expect(again.job.id).not.toBe(abandoned!.id);
  expect((await waitForJob(again.job.id, (j) => isTerminalJobStatus(j.status))).status).toBe('succeeded');
  await unreachable.connection.close();
});
