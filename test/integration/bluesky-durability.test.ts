/**
 * Publishing survives the hard ways it can be interrupted, with real processes killed:
 *
 * 1. The worker is SIGKILLed after the PDS accepted the post but before the activity could report it: the
 *    activity runs again on a new worker and writes under the same record key, so the PDS holds one post.
 * 2. The Temporal server (a dev server of this test's own, on a SQLite file) is SIGKILLed while a post waits
 *    on its timer, and started again on the same file: the post goes out once, at its time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { startBlueskyNetwork, type BlueskyAccount, type BlueskyNetwork } from '../support/bluesky-network.ts';
import { connectBluesky, ownerScope, postRow, postsOnPds, waitForPost } from '../support/channels.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startOwnTemporal, type OwnTemporal } from '../support/own-temporal.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.ts';
import { activityStarts } from '../support/workflow-history.ts';

let network: BlueskyNetwork;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  network = await startBlueskyNetwork();
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.kill('SIGKILL');
});

afterAll(async () => {
  await network?.stop();
});

async function startWorkerProcess(platform: TestPlatform): Promise<WorkerProcess> {
  const worker = spawnWorker(platform.config);
  workers.push(worker);
  await worker.ready;
  return worker;
}

describe('a worker SIGKILLed after the PDS accepted the post', () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let brand: BlueskyAccount;
  let accountId: string;

  beforeAll(async () => {
    platform = await startTestPlatform({ label: 'bskycrash', env: { BLUESKY_SERVICE_URL: network.pdsUrl } });
    tenant = await createTenant(platform.container);
    brand = await network.createAccount('crash');
    accountId = await connectBluesky(platform.container, tenant, brand);
  });

  afterAll(async () => {
    await platform?.close();
  });

  it('publishes again under the same record key on a new worker: one post on the PDS', async () => {
    const { post } = await platform.container.services.channelPosts.draft(
      ownerScope(platform.container, tenant),
      'bluesky',
      {
        accountId,
        text: 'Exactly once, whatever happens to the worker',
      },
    );

    // Started while no worker runs: the run waits for one.
    await platform.container.services.channelPosts.publishNow(ownerScope(platform.container, tenant), 'bluesky', {
      postId: post.id,
    });
    // After the network answers, the publishing activity notes the call on the account's row; holding that row
    // parks the activity there, deterministically: the PDS has the post, Temporal does not know it yet.
    const blocker = new pg.Client({ connectionString: platform.config.database.url });
    await blocker.connect();
    let first: WorkerProcess;
    try {
      await blocker.query('begin');
      await blocker.query('select id from channel_accounts where id = $1 for update', [accountId]);
      first = await startWorkerProcess(platform);
      await pollUntil(
        async () => {
          // A row lock is waited for on the holder's transaction: look for a backend this one blocks.
          const { rows } = await blocker.query<{ waiting: number }>(
            `select count(*)::int as waiting from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))`,
          );
          return rows[0]!.waiting;
        },
        (waiting) => waiting > 0,
        {
          timeoutMs: 60_000,
          intervalMs: 50,
          timeoutMessage: () => `the activity never reached the account row:\n${first.output()}`,
        },
      );
      // The PDS accepted it; the platform has not recorded it.
      const accepted = await postsOnPds(network, brand.did);
      expect(accepted).toHaveLength(1);
      expect((await postRow(platform.container, post.id)).status).toBe('publishing');

      await first.kill('SIGKILL');
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end();
    }

    await startWorkerProcess(platform);
    const published = await waitForPost(platform.container, post.id, (row) => row.status === 'published', 120_000);
    const records = await postsOnPds(network, brand.did);
    expect(records).toHaveLength(1);
    expect(records[0]!.rkey).toBe(published.recordKey);
    expect(records[0]!.uri).toBe(published.externalId);

    // Temporal agrees: the publishing activity ran twice (the first attempt died with its worker).
    const job = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: published.jobId! });
    const handle = platform.container.temporal.client.workflow.getHandle(job.workflowId, job.runId ?? undefined);
    await handle.result();
    const started = activityStarts((await handle.fetchHistory()).events ?? [], 'publishChannelPost');
    expect(started).toHaveLength(1);
    expect(started[0]!.activityTaskStartedEventAttributes?.attempt).toBeGreaterThanOrEqual(2);
  }, 240_000);
});

describe('a Temporal server killed while a post waits on its timer', () => {
  let temporal: OwnTemporal;
  let platform: TestPlatform;

  beforeAll(async () => {
    temporal = await startOwnTemporal('bsky');
    platform = await startTestPlatform({
      label: 'bskytmprestart',
      env: { TEMPORAL_ADDRESS: temporal.address, BLUESKY_SERVICE_URL: network.pdsUrl },
    });
  });

  afterAll(async () => {
    await platform?.close();
    await temporal?.stop();
  });

  it('publishes once, at its time, after the server comes back on the same file', async () => {
    const tenant = await createTenant(platform.container);
    const brand = await network.createAccount('restart');
    const accountId = await connectBluesky(platform.container, tenant, brand);
    await startWorkerProcess(platform);
    const scheduledAt = new Date(Date.now() + 12_000);
    const { post } = await platform.container.services.channelPosts.schedule(
      ownerScope(platform.container, tenant),
      'bluesky',
      { scheduledAt: scheduledAt.toISOString(), fields: { accountId, text: 'Out on time after a server restart' } },
    );
    // The run waits on its timer; the server dies the hard way.
    await temporal.kill();
    // A deliberate pause, not a wait for anything: the outage lasts a while, so the worker's polls really fail.
    await sleep(2_000);
    expect(await postsOnPds(network, brand.did)).toEqual([]);
    await temporal.start();

    const published = await waitForPost(platform.container, post.id, (row) => row.status === 'published', 120_000);
    expect(published.publishedAt!.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
    const records = await postsOnPds(network, brand.did);
    expect(records).toHaveLength(1);
    expect(records[0]!.rkey).toBe(published.recordKey);
  }, 240_000);
});
