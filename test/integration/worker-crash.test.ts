/**
 * Restart survival: a worker process killed with SIGKILL in the middle of a long activity, then a new worker
 * started; the job resumes from its last heartbeat and completes exactly once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Job, JobStep } from '../../src/domain/jobs/job.entity.ts';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.ts';
import { localActivityMarkers } from '../support/workflow-history.ts';
import { acrossWorkspaces, workspaceScope, actors } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let tenant: Tenant;
const workers: WorkerProcess[] = [];

async function readJob(jobId: string): Promise<Job> {
  return acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: jobId });
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'crash' });
  tenant = await createTenant(platform.container);
});

// Each test starts its own workers on the shared task queue; none may outlive its test and steal the next one's work.
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.kill('SIGKILL');
});

afterAll(async () => {
  await platform.close();
});

it('resumes a job after its worker is SIGKILLed mid-activity and completes it exactly once', async () => {
  const first = spawnWorker(platform.config);
  workers.push(first);
  await first.ready;

  const STEPS = 12;
  const { job } = await platform.container.services.jobs.start(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    {
      kind: 'selftest',
      workflowType: 'selftestWorkflow',
      businessKey: 'crash',
      input: { steps: STEPS, stepMs: 400 },
      summary: 'crash test',
    },
  );

  // Let a few steps complete, then kill the worker without any chance to clean up.
  await pollUntil(
    () => readJob(job.id),
    (current) => current.progress.fraction >= 3 / STEPS,
    // Never gives up before the test's own timeout would.
    {
      timeoutMs: 120_000,
      intervalMs: 50,
      timeoutMessage: (current) => `the job stayed at ${current.progress.fraction}`,
    },
  );
  await first.kill('SIGKILL');
  const atKill = await readJob(job.id);
  expect(atKill.status).toBe('running');
  const stepsAtKill = Math.round(atKill.progress.fraction * STEPS);
  expect(stepsAtKill).toBeGreaterThanOrEqual(3);
  expect(stepsAtKill).toBeLessThan(STEPS);

  // Nothing progresses while no worker runs. A deliberate pause, not a wait: showing that something does not
  // happen needs time to pass (well over the 400 ms a step takes).
  await sleep(1_500);
  expect(Math.round((await readJob(job.id)).progress.fraction * STEPS)).toBe(stepsAtKill);

  const second = spawnWorker(platform.config);
  workers.push(second);
  await second.ready;

  const done = await pollUntil(
    () => readJob(job.id),
    (current) => isTerminalJobStatus(current.status),
    { timeoutMs: 90_000, intervalMs: 200, timeoutMessage: (current) => `the job is still ${current.status}` },
  );
  expect(done.status).toBe('succeeded');
  const result = done.result as { steps: number; finishedOnAttempt: number; resumedFromStep: number };
  expect(result.steps).toBe(STEPS);
  expect(result.finishedOnAttempt).toBeGreaterThanOrEqual(2);
  // It resumed from its last heartbeat, not from the start. Heartbeats are throttled (to 80% of the heartbeat
  // timeout), so the last one the server saw may lag the last completed step; the steps in between run again.
  expect(result.resumedFromStep).toBeGreaterThanOrEqual(1);
  expect(result.resumedFromStep).toBeLessThanOrEqual(stepsAtKill);

  // ...and running a step again does not record it again: every step's effect exists exactly once, and the
  // steps finished before the kill keep the record of the attempt that did them.
  const steps = await acrossWorkspaces(platform.container.orm.em).find(JobStep, { job: job.id });
  expect(steps).toHaveLength(STEPS);
  expect(new Set(steps.map((s) => s.name)).size).toBe(STEPS);
  expect(steps.filter((s) => s.attempt === 1).length).toBeGreaterThanOrEqual(stepsAtKill);
  expect(steps.filter((s) => s.attempt >= 2).length).toBeGreaterThan(0);

  // Temporal agrees: one completed run, one successful completion of the long activity.
  const handle = platform.container.temporal.client.workflow.getHandle(job.workflowId, job.runId!);
  await handle.result(); // the job row turns terminal a moment before the workflow completes
  const history = await handle.fetchHistory();
  const types = (history.events ?? []).map((event) => event.eventType);
  const count = (type: number) => types.filter((t) => t === type).length;
  const { temporal } = (await import('@temporalio/proto')).default;
  const EventType = temporal.api.enums.v1.EventType;
  expect(count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).toBe(1);
  // The long activity (runSelftestSteps) completed once; the bookkeeping around it (markJobRunning,
  // completeJob) ran as local activities, one marker each.
  expect(count(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)).toBe(1);
  expect(localActivityMarkers(history.events ?? []).map((marker) => marker.type)).toEqual([
    'markJobRunning',
    'completeJob',
  ]);
  expect((await handle.describe()).status.name).toBe('COMPLETED');
});

it('stops gracefully on SIGTERM, letting an in-flight activity finish first', async () => {
  const worker = spawnWorker(platform.config);
  workers.push(worker);
  await worker.ready;
  const { job } = await platform.container.services.jobs.start(
    workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator),
    {
      kind: 'selftest',
      workflowType: 'selftestWorkflow',
      businessKey: 'graceful',
      input: { steps: 3, stepMs: 300 },
      summary: 'graceful',
    },
  );
  // Signal only once the long activity is in flight (its first step recorded).
  await pollUntil(
    () => platform.container.orm.em.fork().count(JobStep, { job: job.id }),
    (steps) => steps > 0,
    // Never gives up before the test's own timeout would.
    { timeoutMs: 120_000, intervalMs: 20, timeoutMessage: 'the job never recorded a step' },
  );
  const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
  worker.child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(worker.output()).toContain('"worker stopped"');
  // The activity that was running when the signal came finished all its steps before the worker left.
  expect(await acrossWorkspaces(platform.container.orm.em).count(JobStep, { job: job.id })).toBe(3);
});
