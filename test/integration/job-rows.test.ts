/**
 * The writes of job-rows.ts against the database: a late activity (a retry, or a step that finished after the
 * workflow honoured a cancellation) cannot move a job out of a terminal state, and a job asked to cancel can
 * still end but not start running again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import {
  completeJob,
  failJob,
  insertQueuedJob,
  markJobCancelled,
  markJobInputRequired,
  markJobRunning,
  recordCancelRequest,
  reportJobProgress,
  reportStepProgress,
} from '../../src/domain/jobs/job-rows.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let tenant: Tenant;

const em = (): EntityManager => acrossWorkspaces(platform.container.orm.em);

async function newJob(): Promise<string> {
  const id = newId('job');
  await insertQueuedJob(em(), {
    id,
    workspaceId: tenant.workspaceId,
    kind: 'selftest',
    workflowId: `selftest:${tenant.workspaceId}:${id}`,
    subjectId: null,
    input: {},
    createdBy: 'test',
  });
  return id;
}

const read = (id: string) => em().findOneOrFail(Job, { id });

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'job_rows' });
  tenant = await createTenant(platform.container);
});

afterAll(async () => {
  await platform.close();
});

it('keeps a cancelled job cancelled whatever a late activity writes', async () => {
  const id = await newJob();
  await markJobRunning(em(), id);
  await markJobCancelled(em(), id);
  const cancelled = await read(id);
  expect(cancelled.status).toBe('cancelled');

  await completeJob(em(), id, { late: true });
  await failJob(em(), id, { code: 'late', message: 'late' });
  await markJobRunning(em(), id);
  await markJobInputRequired(em(), id, 'late');
  await reportJobProgress(em(), id, { fraction: 0.5, message: 'late' });
  await reportStepProgress(em(), id, { fraction: 0.5, step: 'render', message: 'late' });

  const after = await read(id);
  expect(after.status).toBe('cancelled');
  expect(after.result).toBeNull();
  expect(after.error).toBeNull();
  expect(after.progress).toEqual(cancelled.progress);
  expect(after.finishedAt).toEqual(cancelled.finishedAt);
  expect(after.updatedAt).toEqual(cancelled.updatedAt);
});

it('leaves a job that ended after the caller read it as it ended when a cancellation arrives late', async () => {
  const id = await newJob();
  await markJobRunning(em(), id);
  const manager = em();
  const stale = await manager.findOneOrFail(Job, { id });
  expect(stale.status).toBe('running');
  // The workflow finishes the job from its own process while the cancel request is on its way.
  await completeJob(em(), id, { done: true });

  await recordCancelRequest(manager, stale);
  expect(await read(id)).toMatchObject({ status: 'succeeded', cancelRequestedAt: null, result: { done: true } });
  expect(stale.status).toBe('succeeded');
});

it('lets a job asked to cancel end, but not run or wait again', async () => {
  const id = await newJob();
  await markJobRunning(em(), id);
  const manager = em();
  await recordCancelRequest(manager, await manager.findOneOrFail(Job, { id }));
  expect((await read(id)).status).toBe('cancel_requested');

  await markJobRunning(em(), id);
  await markJobInputRequired(em(), id, 'waiting');
  await reportStepProgress(em(), id, { fraction: 0.5, step: 'render' });
  expect(await read(id)).toMatchObject({ status: 'cancel_requested', progress: { fraction: 0 } });

  await completeJob(em(), id, { done: true });
  expect(await read(id)).toMatchObject({ status: 'succeeded', result: { done: true }, progress: { fraction: 1 } });
});
