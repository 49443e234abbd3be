/**
 * Restart survival of paid jobs, with real processes killed the hard way:
 *
 * 1. A video render whose worker process is SIGKILLed while ffmpeg encodes: the heartbeat timeout notices,
 *    the render runs again on a new worker process, the MP4 lands in the media store and the quoted credits
 *    are captured exactly once.
 * 2. A campaign generation whose Temporal server (a dev server of this test's own, on a SQLite file) is
 *    SIGKILLed mid-job and started again on the same file: the workflow carries on where it was and every
 *    step is captured exactly once.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { CreditLedgerEntry } from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { creditLockKey } from '../../src/domain/credits/credits.service.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import type { RenderOutput } from '../../src/domain/renders/render.types.ts';
import { acrossWorkspaces, type WorkspaceScope, workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { findTemplate } from '../../src/domain/video/templates.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startOwnTemporal, type OwnTemporal } from '../support/own-temporal.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace } from '../support/seed.ts';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.ts';
import { activityStarts, localActivityMarkers } from '../support/workflow-history.ts';
import { pollUntil } from '../support/poll.ts';

const { temporal: proto } = (await import('@temporalio/proto')).default;
const EventType = proto.api.enums.v1.EventType;

const workers: WorkerProcess[] = [];

// No worker may outlive its test.
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.kill('SIGKILL');
});

async function startWorkerProcess(platform: TestPlatform): Promise<WorkerProcess> {
  const worker = spawnWorker(platform.config);
  workers.push(worker);
  await worker.ready;
  return worker;
}

function scopeOf(platform: TestPlatform, tenant: Tenant): WorkspaceScope {
  return workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator);
}

async function readJob(platform: TestPlatform, jobId: string): Promise<Job> {
  return acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: jobId });
}

async function waitForJob(
  platform: TestPlatform,
  jobId: string,
  until: (job: Job) => boolean,
  timeoutMs: number,
  pollMs = 50,
): Promise<Job> {
  return pollUntil(() => readJob(platform, jobId), until, {
    timeoutMs,
    intervalMs: pollMs,
    timeoutMessage: (job) =>
      `job ${jobId} did not get there in ${timeoutMs} ms: ${JSON.stringify(job.progress)} ${job.status}`,
  });
}

async function ledgerFor(platform: TestPlatform, jobId: string) {
  return acrossWorkspaces(platform.container.orm.em).find(
    CreditLedgerEntry,
    { reference: jobId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

describe('a render whose worker is SIGKILLed mid-encode', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ label: 'sigkill' });
  });

  afterAll(async () => {
    await platform.close();
  });

  it('resumes on a new worker process, stores the MP4 and captures its credits exactly once', async () => {
    const { renders, credits, media } = platform.container.services;
    const first = await startWorkerProcess(platform);
    const tenant = await createTenant(platform.container, { credits: 1000 });
    const seeded = await seedWorkspace(platform.container, tenant, 'Sigkill');
    const template = findTemplate('tpl_launch_teaser')!;
    expect(template.durationSeconds).toBe(12);

    const args = { mode: 'video', templateId: template.id, campaignId: seeded.campaignId };
    const quoted = await renders.render(scopeOf(platform, tenant), args);
    if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
    const price = quoted.quote.credits;
    expect(price).toBeGreaterThan(0);
    const started = await renders.render(scopeOf(platform, tenant), { ...args, quoteId: quoted.quote.id });
    if (started.status !== 'started') throw new Error(`expected started, got ${started.status}`);
    const jobId = started.job.id;
    const key = `${tenant.workspaceId}/renders/${jobId}/video.mp4`;

    // ffmpeg is encoding (past the 5% that composing the frames reports), not yet done: kill the worker.
    await waitForJob(platform, jobId, (job) => job.progress.fraction > 0.05, 60_000, 20);
    await first.kill('SIGKILL');
    const atKill = await readJob(platform, jobId);
    expect(atKill.status).toBe('running');
    expect(atKill.progress.fraction).toBeLessThan(1);
    expect(await media.get(key)).toBeNull();
    expect((await ledgerFor(platform, jobId)).map((e) => e.kind)).toEqual(['reserve']);
    expect(await credits.balance(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId)).toEqual({
      available: 1000 - price,
      held: price,
      spent: 0,
    });

    const second = await startWorkerProcess(platform);
    const done = await waitForJob(platform, jobId, (job) => isTerminalJobStatus(job.status), 150_000, 200);
    expect(second.child.exitCode).toBeNull();
    expect(done.status).toBe('succeeded');

    const output = (done.result as { output: RenderOutput }).output;
    expect(output).toMatchObject({ key, mimeType: 'video/mp4', width: 1280, height: 720, durationSeconds: 12 });
    const stored = await media.get(key);
    expect(stored).not.toBeNull();
    expect(stored!.contentType).toBe('video/mp4');
    expect(stored!.bytes.length).toBe(output.bytes);
    expect(createHash('sha256').update(stored!.bytes).digest('hex')).toBe(output.sha256);
    expect(stored!.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    // Exactly one capture of the quoted price; nothing left held, nothing released.
    const entries = await ledgerFor(platform, jobId);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['reserve', price],
      ['capture', price],
    ]);
    expect(entries.filter((e) => e.kind === 'capture').map((e) => e.idempotencyKey)).toEqual([
      `${jobId}:capture:render`,
    ]);
    expect(await credits.heldFor(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId, jobId)).toBe(0);
    expect(await credits.balance(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId)).toEqual({
      available: 1000 - price,
      held: 0,
      spent: price,
    });

    // Temporal agrees: the render activity completed once, on a retry (the first attempt died with its worker).
    // The job row turns `succeeded` from an activity a moment before the workflow itself completes, so wait
    // for the workflow's result before reading its history.
    const handle = platform.container.temporal.client.workflow.getHandle(
      started.job.workflowId,
      started.job.runId ?? undefined,
    );
    await handle.result();
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).toHaveLength(1);
    const renderStarted = activityStarts(events, 'renderMedia');
    expect(renderStarted).toHaveLength(1);
    expect(renderStarted[0]!.activityTaskStartedEventAttributes?.attempt).toBeGreaterThanOrEqual(2);
  }, 240_000);
});

describe('a campaign generation whose Temporal server is killed mid-job', () => {
  let temporal: OwnTemporal;
  let platform: TestPlatform;

  beforeAll(async () => {
    temporal = await startOwnTemporal('restart');
    platform = await startTestPlatform({ label: 'tmprestart', env: { TEMPORAL_ADDRESS: temporal.address } });
  });

  afterAll(async () => {
    await platform?.close();
    await temporal?.stop();
  });

  it.each([
    { name: 'its worker rides out the outage', killWorker: false },
    { name: 'its worker is SIGKILLed too and another one finishes', killWorker: true },
  ])(
    'carries on after the server restarts on the same SQLite file ($name); each step is captured once',
    async ({ killWorker }) => {
      const { generation, credits } = platform.container.services;
      const tenant = await createTenant(platform.container, { credits: 1000 });
      const scope = () => scopeOf(platform, tenant);

      // Started while no worker runs, so nothing happens before the lock below is held.
      const args = { intent: 'Launch our linen shirts for a hot summer', variantCount: 2, channels: ['web' as const] };
      const quoted = await generation.start(scope(), args);
      if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
      const prices = Object.fromEntries(
        quoted.quote.covers.filter((line) => line.credits > 0).map((line) => [line.step, line.credits]),
      );
      expect(Object.keys(prices)).toEqual(['brief', 'copy', 'images']);
      const total = quoted.quote.credits;
      const started = await generation.start(scope(), { ...args, quoteId: quoted.quote.id });
      if (started.status !== 'started') throw new Error(`expected started, got ${started.status}`);
      const jobId = started.job.id;

      // Every capture for this job waits for this lock (postings out of `held` lock the job they pay for):
      // holding it parks the workflow, deterministically, in the capture of its first step — the step's work
      // done, its capture not yet posted.
      const lockKey = creditLockKey('capture', tenant.workspaceId, jobId);
      const blocker = new pg.Client({ connectionString: platform.config.database.url });
      await blocker.connect();
      let worker: WorkerProcess;
      try {
        await blocker.query('select pg_advisory_lock(hashtext($1))', [lockKey]);
        worker = await startWorkerProcess(platform);
        await pollUntil(
          async () => {
            const { rows } = await blocker.query<{ waiting: number }>(
              `select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted`,
            );
            return rows[0]!.waiting;
          },
          (waiting) => waiting > 0,
          {
            timeoutMs: 60_000,
            intervalMs: 50,
            timeoutMessage: () => `the capture never waited for the lock:\n${worker.output()}`,
          },
        );
        const parked = await readJob(platform, jobId);
        expect(parked.status).toBe('running');
        expect(parked.progress.step).toBe('brief');
        expect((await ledgerFor(platform, jobId)).map((e) => e.kind)).toEqual(['reserve']);

        // The Temporal server dies the hard way, mid-job.
        await temporal.kill();
      } finally {
        // The parked capture now posts, while Temporal is down: it cannot learn that it did.
        await blocker.end();
      }
      await waitForLedger(platform, jobId, (kinds) => kinds.includes('capture'), 30_000);
      if (killWorker) await worker.kill('SIGKILL');
      // A deliberate pause, not a wait for anything: the outage lasts a while, so that the worker's polls (and
      // the report of the capture that just posted) really fail against a dead server.
      await sleep(1_000);

      const restartedAt = Date.now();
      await temporal.start();
      // A new worker never learns that the capture was posted: the activity times out and runs again.
      if (killWorker) worker = await startWorkerProcess(platform);
      const done = await waitForJob(platform, jobId, (job) => isTerminalJobStatus(job.status), 180_000, 200);
      expect(done.status).toBe('succeeded');
      expect((done.result as { creditsCaptured: number }).creditsCaptured).toBe(total);
      // The worker that finished it is alive: the first one rode out the outage (it kept retrying its polls), or
      // its replacement did the rest.
      expect(worker.child.exitCode).toBeNull();
      expect(worker.child.signalCode).toBeNull();

      const entries = await ledgerFor(platform, jobId);
      const captures = entries.filter((e) => e.kind === 'capture');
      expect(captures.map((e) => [e.idempotencyKey, e.amount]).sort()).toEqual(
        Object.entries(prices)
          .map(([step, amount]) => [`${jobId}:capture:${step}`, amount])
          .sort(),
      );
      expect(entries.filter((e) => e.kind === 'reserve').map((e) => e.amount)).toEqual([total]);
      expect(entries.filter((e) => e.kind === 'release')).toEqual([]);
      expect(await credits.heldFor(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId, jobId)).toBe(0);
      expect(await credits.balance(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId)).toEqual({
        available: 1000 - total,
        held: 0,
        spent: total,
      });

      // The same run carried on (it was not started again from scratch) and completed once.
      const handle = platform.container.temporal.client.workflow.getHandle(started.job.workflowId);
      await handle.result(); // the job row turns terminal a moment before the workflow completes
      const description = await handle.describe();
      expect(description.status.name).toBe('COMPLETED');
      expect(description.runId).toBe((await readJob(platform, jobId)).runId);
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)).toHaveLength(1);
      expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).toHaveLength(1);
      // The first capture (the brief's) was the one in flight at the crash; with its worker gone it ran again.
      // Bookkeeping runs as local activities, recorded as markers when a workflow task completes. The brief's
      // capture was parked at the crash: its workflow task could not complete while the server was down, so it
      // ran again (the posting replayed by its idempotency key) and was recorded only after the restart.
      const captureMarkers = localActivityMarkers(events).filter((activity) => activity.type === 'captureJobCredits');
      expect(captureMarkers).toHaveLength(Object.keys(prices).length);
      expect(captureMarkers[0]!.recordedAt).toBeGreaterThanOrEqual(restartedAt);
    },
    300_000,
  );
});

async function waitForLedger(
  platform: TestPlatform,
  jobId: string,
  until: (kinds: string[]) => boolean,
  timeoutMs: number,
): Promise<void> {
  await pollUntil(async () => (await ledgerFor(platform, jobId)).map((e) => e.kind), until, {
    timeoutMs,
    intervalMs: 50,
    timeoutMessage: (kinds) => `the ledger of ${jobId} stayed at ${kinds.join(', ')}`,
  });
}
