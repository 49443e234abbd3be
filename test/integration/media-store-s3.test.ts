/**
 * The S3 media store against a real S3-compatible server: the Versity S3 gateway over a local directory
 * (`src/dev/s3-gateway.ts`), which checks SigV4 signatures as S3 does. Objects are checked on the gateway's
 * disk, independently of the store that wrote them. Then the platform configured with `MEDIA_STORE=s3`: a
 * render's PNG lands in the bucket and the platform's media route serves it from there.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AwsClient } from 'aws4fetch';
import { PNG } from 'pngjs';
import { startS3Gateway, type RunningS3Gateway } from '../../src/dev/s3-gateway.ts';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import { createS3MediaStore, type MediaStore } from '../../src/domain/media/media-store.ts';
import { STILL_SIZES, type RenderOutput } from '../../src/domain/renders/render.types.ts';
import { createTenant } from '../support/factories.ts';
import { freePort } from '../support/global-setup.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { scopeOf, seedWorkspace } from '../support/seed.ts';

const BUCKET = 'campaign-media';
const dataDir = path.resolve('.data/test', `s3-${randomBytes(4).toString('hex')}`);
let gateway: RunningS3Gateway;
let store: MediaStore;

/** The object as the gateway stored it on disk (its posix backend keeps one file per object). */
const onDisk = (key: string) => path.join(dataDir, BUCKET, key);

function storeWith(secretAccessKey: string): MediaStore {
  return createS3MediaStore({
    endpoint: gateway.endpoint,
    bucket: BUCKET,
    region: 'us-east-1',
    accessKeyId: gateway.accessKeyId,
    secretAccessKey,
    publicBaseUrl: 'http://app.localhost',
  });
}

beforeAll(async () => {
  gateway = await startS3Gateway({
    binary: process.env.TEST_S3_GATEWAY!,
    dataDir,
    port: await freePort(),
    accessKeyId: `AK${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  });
  const admin = new AwsClient({
    accessKeyId: gateway.accessKeyId,
    secretAccessKey: gateway.secretAccessKey,
    region: 'us-east-1',
    service: 's3',
  });
  const created = await admin.fetch(`${gateway.endpoint}/${BUCKET}`, { method: 'PUT' });
  expect(created.status).toBe(200);
  store = storeWith(gateway.secretAccessKey);
});

afterAll(async () => {
  await closeTestFetch();
  await gateway?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('the S3 media store', () => {
  it('writes objects with their content type, reads them back, and replaces them on a retried write', async () => {
    const key = 'ws_s3/renders/job_1/still-square.png';
    const first = randomBytes(5000);
    await store.put(key, first, 'image/png');
    expect(await fs.readFile(onDisk(key))).toEqual(first);
    expect(await store.get(key)).toEqual({ bytes: first, contentType: 'image/png' });

    // An activity that runs again writes the same key again: the object is replaced, never duplicated.
    const second = randomBytes(3000);
    await store.put(key, second, 'image/png');
    expect(await fs.readFile(onDisk(key))).toEqual(second);
    expect((await store.get(key))!.bytes).toEqual(second);
  });

  it('answers null for a key that was never written', async () => {
    expect(await store.get('ws_s3/renders/job_missing/video.mp4')).toBeNull();
  });

  it('fails with the HTTP status when the signature is refused, and stores nothing', async () => {
    const key = 'ws_s3/renders/job_2/still.png';
    await expect(storeWith('not-the-secret').put(key, randomBytes(100), 'image/png')).rejects.toThrow(
      /^S3 PUT ws_s3\/renders\/job_2\/still\.png failed: HTTP 403 SignatureDoesNotMatch: The request signature/,
    );
    expect(existsSync(onDisk(key))).toBe(false);
    await expect(storeWith('not-the-secret').get('ws_s3/renders/job_1/still-square.png')).rejects.toThrow(
      'S3 GET ws_s3/renders/job_1/still-square.png failed: HTTP 403 SignatureDoesNotMatch',
    );
  });

  it('is reachable (readiness) only with the right credentials and an existing bucket', async () => {
    await expect(store.checkReachable()).resolves.toBeUndefined();
    await expect(storeWith('not-the-secret').checkReachable()).rejects.toThrow(`S3 HEAD ${BUCKET} failed: HTTP 403`);
    const missingBucket = createS3MediaStore({
      endpoint: gateway.endpoint,
      bucket: 'no-such-bucket',
      region: 'us-east-1',
      accessKeyId: gateway.accessKeyId,
      secretAccessKey: gateway.secretAccessKey,
      publicBaseUrl: 'http://app.localhost',
    });
    await expect(missingBucket.checkReachable()).rejects.toThrow('S3 HEAD no-such-bucket failed: HTTP 404');
  });

  it('refuses a malformed key before any request: nothing can climb out of the bucket', async () => {
    await expect(store.put('../escape.png', randomBytes(10), 'image/png')).rejects.toThrow('Invalid media key');
    await expect(store.put('ws_s3/../../escape.png', randomBytes(10), 'image/png')).rejects.toThrow(
      'Invalid media key',
    );
    expect(await store.get('ws_s3/../other-bucket/x.png')).toBeNull();
    expect(existsSync(path.join(dataDir, 'escape.png'))).toBe(false);
  });
});

describe('the platform with MEDIA_STORE=s3', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({
      worker: true,
      label: 'medias3',
      env: {
        MEDIA_STORE: 's3',
        S3_ENDPOINT: gateway.endpoint,
        S3_BUCKET: BUCKET,
        S3_ACCESS_KEY_ID: gateway.accessKeyId,
        S3_SECRET_ACCESS_KEY: gateway.secretAccessKey,
      },
    });
  });

  afterAll(async () => {
    await platform?.close();
  });

  it("stores a render's PNG in the bucket and serves it from there at the media route", async () => {
    const { renders, jobs, media } = platform.container.services;
    expect(media.kind).toBe('s3');
    const tenant = await createTenant(platform.container, { credits: 100 });
    const seed = await seedWorkspace(platform.container, tenant, 'S3');
    const scope = () => scopeOf(platform.container, tenant);
    const args = { mode: 'still', campaignId: seed.campaignId, variantId: seed.variantId, format: 'square' };
    const quoted = await renders.render(scope(), args);
    if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
    const started = await renders.render(scope(), { ...args, quoteId: quoted.quote.id });
    if (started.status !== 'started') throw new Error(`expected started, got ${started.status}`);
    const job = await pollUntil(
      () => jobs.get(scope(), started.job.id),
      (current) => isTerminalJobStatus(current.status),
      { timeoutMs: 60_000, intervalMs: 100, timeoutMessage: (current) => `render stuck in ${current.status}` },
    );
    expect({ status: job.status, error: job.error }).toEqual({ status: 'succeeded', error: null });
    const output = (job.result as { output: RenderOutput }).output;

    const stored = await fs.readFile(onDisk(output.key));
    expect(stored.length).toBe(output.bytes);
    const served = await testFetch(output.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes).toEqual(stored);
    const png = PNG.sync.read(bytes);
    expect({ width: png.width, height: png.height }).toEqual(STILL_SIZES.square);
  });
});
