/**
 * Renders, commissioned films and product CSV imports on the real Temporal dev server with a real worker,
 * driven through the domain services: quote then commit, the media the workers produce (PNG decoded, MP4
 * decoded end to end by ffmpeg), the credit postings of every job (reserve, one capture per step, release of
 * what is left), the film's approval gates with revise loops, cancellation, and batched CSV imports served
 * from a local HTTP server (reached as `localhost`, allowed by `SSRF_ALLOW_PRIVATE_HOSTS`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { CreditLedgerEntry } from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { probeMedia } from '../../src/domain/creative/video/ffmpeg.ts';
import type { FilmsService, FilmView } from '../../src/domain/films/films.service.ts';
import { Job, JobStep } from '../../src/domain/jobs/job.entity.ts';
import { isTerminalJobStatus } from '../../src/domain/jobs/job-status.ts';
import { Product } from '../../src/domain/products/product.entity.ts';
import { STILL_SIZES, type RenderOutput, type StillFormat } from '../../src/domain/renders/render.types.ts';
import { acrossWorkspaces, type WorkspaceScope } from '../../src/domain/shared/scope.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { pollUntil } from '../support/poll.ts';

let platform: TestPlatform;
let tenant: Tenant;
let seed: SeededWorkspace;
let tmpDir: string;
const servers: http.Server[] = [];
let csvPort: number;
const csvRequests: string[] = [];

const scope = (): WorkspaceScope => scopeOf(platform.container, tenant);
const services = () => platform.container.services;

// ---------------------------------------------------------------------------------------------------------
// CSV fixtures: 250 good rows plus two bad ones, so the import runs three batches of (at most) 100 rows.

const GOOD_ROWS = 250;
const goodTitle = (n: number) => `Import item ${String(n).padStart(3, '0')}`;
const csvLines = ['Title,Description,Price,Currency,SKU,Colour'];
/** 1-based file row numbers (the header is row 1) of the bad rows, and why each is refused. */
const badRows: { row: number; message: string }[] = [];
for (let n = 1; n <= GOOD_ROWS; n++) {
  csvLines.push(`${goodTitle(n)},"Woven cotton, size ${n}",${(n + 0.5).toFixed(2)},EUR,SKU-${n},red`);
  if (n === 120) {
    csvLines.push('Broken price item,Costs less than nothing,-5,EUR,SKU-NEG,blue');
    badRows.push({ row: csvLines.length, message: 'price must not be negative' });
  }
  if (n === 230) {
    csvLines.push(',A row without a title,3.00,EUR,SKU-EMPTY,green');
    badRows.push({ row: csvLines.length, message: 'title must not be empty' });
  }
}
const PRODUCTS_CSV = `${csvLines.join('\n')}\n`;
const NO_TITLE_CSV = 'Description,Price,Currency\nNo title anywhere,4.00,EUR\n';

/** A product picture for the CSV whose rows name images (drawn here, so its bytes are known). */
function productPicture(): Buffer {
  const png = new PNG({ width: 40, height: 30 });
  png.data.fill(120);
  return PNG.sync.write(png);
}
const PICTURE = productPicture();

function csvHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  csvRequests.push(url.pathname);
  if (url.pathname === '/img/mug.png') {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(PICTURE);
    return;
  }
  if (url.pathname === '/with-images.csv') {
    res.writeHead(200, { 'content-type': 'text/csv' });
    res.end(
      `Title,Image\nPictured mug,${csvUrl('/img/mug.png')}\nMug with a lost picture,${csvUrl('/img/gone.png')}\nMug without a picture,\n`,
    );
    return;
  }
  const body = url.pathname === '/products.csv' ? PRODUCTS_CSV : url.pathname === '/no-title.csv' ? NO_TITLE_CSV : null;
  if (body === null) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/csv' });
  res.end(body);
}

async function listen(host: string, port: number): Promise<number> {
  const server = http.createServer(csvHandler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

const csvUrl = (pathname: string) => `http://localhost:${csvPort}${pathname}`;

// ---------------------------------------------------------------------------------------------------------
// Helpers

async function waitForJob(jobId: string, predicate: (job: Job) => boolean, timeoutMs = 90_000): Promise<Job> {
  return pollUntil(() => services().jobs.get(scope(), jobId), predicate, {
    timeoutMs,
    intervalMs: 100,
    timeoutMessage: (job) => `job ${jobId} stuck in ${job.status} (${JSON.stringify(job.progress)})`,
  });
}

const finished = (jobId: string) => waitForJob(jobId, (job) => isTerminalJobStatus(job.status));

async function waitForFilm(id: string, predicate: (film: FilmView) => boolean, timeoutMs = 90_000): Promise<FilmView> {
  return pollUntil(() => services().films.get(scope(), id), predicate, {
    timeoutMs,
    intervalMs: 100,
    timeoutMessage: (film) => `film ${id} stuck in ${film.status} (job ${film.job?.status})`,
  });
}

async function entriesFor(reference: string) {
  const rows = await acrossWorkspaces(platform.container.orm.em).find(
    CreditLedgerEntry,
    { reference },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return rows.map((row) => ({ kind: row.kind, amount: row.amount, key: row.idempotencyKey }));
}

const balance = () => services().credits.balance(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId);

/** Quote, then commit with the quote: returns the quote and the started render job. */
async function startRender(args: Record<string, unknown>) {
  const quoted = await services().renders.render(scope(), args);
  if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
  const started = await services().renders.render(scope(), { ...args, quoteId: quoted.quote.id });
  if (started.status !== 'started') throw new Error(`expected started, got ${started.status}`);
  return { quote: quoted.quote, job: started.job };
}

/** The bytes of a stored media object. */
async function mediaBytes(key: string): Promise<Buffer> {
  const stored = await services().media.get(key);
  if (!stored) throw new Error(`media ${key} is missing`);
  return stored.bytes;
}

/** Decodes a stored MP4 end to end with ffmpeg and returns what it read. */
async function probeStored(key: string) {
  const file = path.join(tmpDir, `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.mp4`);
  await writeFile(file, await mediaBytes(key));
  return probeMedia(file);
}

type CreateFilmInput = Parameters<FilmsService['create']>[1];

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// ---------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  tmpDir = await mkdtemp(path.join(os.tmpdir(), 'render-film-import-'));
  csvPort = await listen('127.0.0.1', 0);
  // Where `localhost` resolves to ::1 first, serve the same files there too (best effort: no IPv6, no matter).
  await listen('::1', csvPort).catch(() => undefined);
  platform = await startTestPlatform({
    worker: true,
    label: 'renderfilmimport',
    env: { SSRF_ALLOW_PRIVATE_HOSTS: 'localhost' },
  });
  tenant = await createTenant(platform.container, { credits: 1000 });
  seed = await seedWorkspace(platform.container, tenant, 'Workflows');
});

afterAll(async () => {
  await platform?.close();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  if (tmpDir) await rm(tmpDir, { recursive: true, force: true });
});

describe('renders', () => {
  it.each<StillFormat>(['landscape', 'square', 'story'])(
    'renders a %s still as a PNG of its format size and captures its quote once',
    async (format) => {
      const args = { mode: 'still', campaignId: seed.campaignId, variantId: seed.variantId, format };
      const { quote, job } = await startRender(args);
      expect(quote).toMatchObject({ operation: 'render_video.still', credits: 2, sufficient: true });
      expect(job.kind).toBe('render');

      const done = await finished(job.id);
      expect({ status: done.status, error: done.error }).toEqual({ status: 'succeeded', error: null });
      const output = (done.result as { output: RenderOutput }).output;
      expect(output).toMatchObject({
        mimeType: 'image/png',
        ...STILL_SIZES[format],
        durationSeconds: null,
        url: expect.stringContaining(output.key),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(output.key).toBe(`${tenant.workspaceId}/renders/${job.id}/still-${format}.png`);

      const bytes = await mediaBytes(output.key);
      expect({ bytes: bytes.length, sha256: sha256(bytes) }).toEqual({ bytes: output.bytes, sha256: output.sha256 });
      const png = PNG.sync.read(bytes);
      expect({ width: png.width, height: png.height }).toEqual(STILL_SIZES[format]);

      expect(await entriesFor(job.id)).toEqual([
        { kind: 'reserve', amount: 2, key: `quote:${quote.id}` },
        { kind: 'capture', amount: 2, key: `${job.id}:capture:render` },
      ]);
      expect((await balance()).held).toBe(0);
    },
  );

  it('renders a square-offer template video: H.264, 1080x1080, 6 s', async () => {
    const args = {
      mode: 'video',
      templateId: 'tpl_square_offer',
      campaignId: seed.campaignId,
      variantId: seed.variantId,
    };
    const { quote, job } = await startRender(args);
    expect(quote).toMatchObject({ operation: 'render_video.video', credits: 15 });

    const done = await finished(job.id);
    expect({ status: done.status, error: done.error }).toEqual({ status: 'succeeded', error: null });
    expect(done.progress.fraction).toBe(1);
    const output = (done.result as { output: RenderOutput }).output;
    expect(output).toMatchObject({
      mimeType: 'video/mp4',
      width: 1080,
      height: 1080,
      url: expect.stringContaining(output.key),
    });
    expect(output.durationSeconds).toBeCloseTo(6, 1);
    const bytes = await mediaBytes(output.key);
    expect({ bytes: bytes.length, sha256: sha256(bytes) }).toEqual({ bytes: output.bytes, sha256: output.sha256 });

    const probe = await probeStored(output.key);
    expect({ codec: probe.codec, width: probe.width, height: probe.height }).toEqual({
      codec: 'h264',
      width: 1080,
      height: 1080,
    });
    expect(Math.abs(probe.durationSeconds! - 6)).toBeLessThanOrEqual(0.2);

    expect(await entriesFor(job.id)).toEqual([
      { kind: 'reserve', amount: 15, key: `quote:${quote.id}` },
      { kind: 'capture', amount: 15, key: `${job.id}:capture:render` },
    ]);
  });

  it('renders a campaign video: 3 s per active variant at 1280x720', async () => {
    const { quote, job } = await startRender({ mode: 'campaign', campaignId: seed.campaignId });
    // Two active variants: the base price plus one scene each.
    expect(quote).toMatchObject({ operation: 'render_video.campaign', credits: 20 });

    const done = await finished(job.id);
    expect({ status: done.status, error: done.error }).toEqual({ status: 'succeeded', error: null });
    const output = (done.result as { output: RenderOutput }).output;
    expect(output).toMatchObject({ mimeType: 'video/mp4', width: 1280, height: 720 });
    expect(output.key).toBe(`${tenant.workspaceId}/renders/${job.id}/campaign.mp4`);
    expect(output.durationSeconds).toBeCloseTo(6, 1);

    const probe = await probeStored(output.key);
    expect({ codec: probe.codec, width: probe.width, height: probe.height }).toEqual({
      codec: 'h264',
      width: 1280,
      height: 720,
    });
    expect(Math.abs(probe.durationSeconds! - 6)).toBeLessThanOrEqual(0.2);
    expect(await mediaBytes(output.key)).toHaveLength(output.bytes);

    expect(await entriesFor(job.id)).toEqual([
      { kind: 'reserve', amount: 20, key: `quote:${quote.id}` },
      { kind: 'capture', amount: 20, key: `${job.id}:capture:render` },
    ]);
    expect((await balance()).held).toBe(0);
  });

  it('cancels a campaign render while it encodes and returns every reserved credit', async () => {
    // A campaign long enough (10 variants, 30 s of video) to still be encoding when the cancel arrives.
    const { campaigns } = services();
    const campaign = await campaigns.create(scope(), { name: 'Long campaign', productIds: [seed.productId] });
    for (let i = 0; i < 10; i++) {
      await campaigns.createVariant(scope(), campaign.id, {
        headline: `Scene ${i + 1}`,
        body: `Variant number ${i + 1}.`,
        callToAction: 'Shop now',
      });
    }
    const before = await balance();
    const { quote, job } = await startRender({ mode: 'campaign', campaignId: campaign.id });
    expect(quote.credits).toBe(60);
    expect((await balance()).held).toBe(before.held + 60);

    await waitForJob(job.id, (j) => j.status === 'running' && j.progress.fraction > 0);
    const requested = await services().jobs.requestCancel(scope(), job.id);
    expect(requested.status).toBe('cancel_requested');

    const done = await finished(job.id);
    expect({ status: done.status, result: done.result }).toEqual({ status: 'cancelled', result: null });
    expect(await entriesFor(job.id)).toEqual([
      { kind: 'reserve', amount: 60, key: `quote:${quote.id}` },
      { kind: 'release', amount: 60, key: `${job.id}:release` },
    ]);
    expect(await balance()).toEqual(before);
    expect((await services().renders.progress(scope(), job.id)).status).toBe('cancelled');
  });
});

describe('commissioned films', () => {
  const brief = { title: 'Linen in the heat', brief: 'A short film about wearing linen on the hottest day of summer.' };

  async function createFilm(args: CreateFilmInput) {
    const quoted = await services().films.create(scope(), args);
    if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
    const created = await services().films.create(scope(), { ...args, quoteId: quoted.quote.id });
    if (created.status !== 'done') throw new Error(`expected done, got ${created.status}`);
    return { quote: quoted.quote, film: created.film, job: created.job! };
  }

  async function revise(commissionId: string, notes: string) {
    const quoted = await services().films.revise(scope(), { commissionId, notes });
    if (quoted.status !== 'quote_required') throw new Error(`expected a quote, got ${quoted.status}`);
    const done = await services().films.revise(scope(), { commissionId, notes, quoteId: quoted.quote.id });
    if (done.status !== 'done') throw new Error(`expected done, got ${done.status}`);
    return { quote: quoted.quote, film: done.film };
  }

  /** Waits until the film waits at `status` with its job `input_required`, and `also` holds. */
  const atGate = (
    id: string,
    status: 'awaiting_storyboard_approval' | 'awaiting_final_approval',
    also: (film: FilmView) => boolean = () => true,
  ) => waitForFilm(id, (film) => film.status === status && film.job?.status === 'input_required' && also(film));

  it('runs script → storyboard → revise → approve → render → revise → approve, capturing each stage once', async () => {
    const { quote, film, job } = await createFilm({ ...brief, campaignId: seed.campaignId, aspect: '16:9' });
    expect(quote).toMatchObject({ operation: 'video_commission.create', credits: 50 });
    expect(film.jobId).toBe(job.id);
    expect(job.kind).toBe('film');

    // Storyboard gate, first cut.
    const board0 = await atGate(film.id, 'awaiting_storyboard_approval');
    expect(board0.waitingFor).toBe('storyboard_approval');
    expect(board0.script?.scenes.length).toBeGreaterThan(0);
    expect(board0.storyboard).toHaveLength(board0.script!.scenes.length);
    expect(board0.storyboard!.every((frame) => frame.key.includes('/r0/'))).toBe(true);
    const frame = PNG.sync.read(await mediaBytes(board0.storyboard![0]!.key));
    expect({ width: frame.width, height: frame.height }).toEqual({ width: 1280, height: 720 });
    expect(board0.output).toBeNull();
    const gateJob = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: job.id });
    expect(gateJob.status).toBe('input_required');

    // Revise the storyboard: a quote, then the revision runs script and storyboard again.
    const storyboardRevision = await revise(film.id, 'Make the second scene happen at the beach.');
    expect(storyboardRevision.quote).toMatchObject({ operation: 'video_commission.revise_storyboard', credits: 8 });
    expect(storyboardRevision.film.revision).toBe(1);
    const board1 = await atGate(film.id, 'awaiting_storyboard_approval', (f) =>
      Boolean(f.storyboard?.length && f.storyboard.every((frame) => frame.key.includes('/r1/'))),
    );
    expect(board1.revisions.map((r) => [r.stage, r.notes])).toEqual([
      ['storyboard', 'Make the second scene happen at the beach.'],
    ]);

    // Approve the storyboard: the film renders and waits for the final approval with its cut.
    const approved = await services().films.approve(scope(), film.id);
    expect(approved.status).toBe('done');
    // A second approval right behind the first is refused: the film no longer waits at that gate.
    await expect(services().films.approve(scope(), film.id)).rejects.toMatchObject({ code: 'conflict' });
    const cut1 = await atGate(film.id, 'awaiting_final_approval');
    expect(cut1.waitingFor).toBe('final_approval');
    expect(cut1.output).toMatchObject({ mimeType: 'video/mp4', width: 1280, height: 720 });
    expect(cut1.output!.key).toBe(`${tenant.workspaceId}/films/${film.id}/cut-1.mp4`);
    const sceneSeconds = cut1.script!.scenes.reduce((sum, scene) => sum + scene.seconds, 0);
    const probe1 = await probeStored(cut1.output!.key);
    expect({ codec: probe1.codec, width: probe1.width, height: probe1.height }).toEqual({
      codec: 'h264',
      width: 1280,
      height: 720,
    });
    expect(Math.abs(probe1.durationSeconds! - cut1.output!.durationSeconds)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(probe1.durationSeconds! - sceneSeconds)).toBeLessThanOrEqual(0.2);

    // Revise the cut: a re-render with the notes, back at the final gate with a second cut.
    const finalRevision = await revise(film.id, 'Slow down the last scene.');
    expect(finalRevision.quote).toMatchObject({ operation: 'video_commission.revise_final', credits: 20 });
    const cut2 = await atGate(film.id, 'awaiting_final_approval', (f) => f.output?.key.endsWith('/cut-2.mp4') ?? false);
    expect(cut2.revision).toBe(2);
    expect(cut2.revisions.map((r) => r.stage)).toEqual(['storyboard', 'final']);
    const probe2 = await probeStored(cut2.output!.key);
    expect({ codec: probe2.codec, width: probe2.width, height: probe2.height }).toEqual({
      codec: 'h264',
      width: 1280,
      height: 720,
    });
    expect(Math.abs(probe2.durationSeconds! - cut2.output!.durationSeconds)).toBeLessThanOrEqual(0.2);
    // The first cut stays available.
    expect((await mediaBytes(cut1.output!.key)).length).toBe(cut1.output!.bytes);

    await services().films.approve(scope(), film.id);
    const completed = await waitForFilm(film.id, (f) => f.status === 'completed' && f.job?.status === 'succeeded');
    expect(completed.waitingFor).toBeNull();
    const doneJob = await finished(job.id);
    expect(doneJob.result).toEqual({ commissionId: film.id, revisions: 2, creditsCaptured: 78 });

    expect(await entriesFor(job.id)).toEqual([
      { kind: 'reserve', amount: 50, key: `quote:${quote.id}` },
      { kind: 'capture', amount: 10, key: `${job.id}:capture:script-0` },
      { kind: 'capture', amount: 10, key: `${job.id}:capture:storyboard-0` },
      { kind: 'reserve', amount: 8, key: `quote:${storyboardRevision.quote.id}` },
      { kind: 'capture', amount: 8, key: `${job.id}:capture:storyboard_revision-1` },
      { kind: 'capture', amount: 30, key: `${job.id}:capture:render-0` },
      { kind: 'reserve', amount: 20, key: `quote:${finalRevision.quote.id}` },
      { kind: 'capture', amount: 20, key: `${job.id}:capture:render_revision-1` },
    ]);
    expect(
      await services().credits.heldFor(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId, job.id),
    ).toBe(0);
    expect((await balance()).held).toBe(0);

    // A completed film takes no more decisions.
    await expect(services().films.approve(scope(), film.id)).rejects.toMatchObject({
      code: 'conflict',
      details: { status: 'completed' },
    });
    await expect(services().films.revise(scope(), { commissionId: film.id, notes: 'One more.' })).rejects.toMatchObject(
      { code: 'conflict' },
    );
  }, 240_000);

  it('cancels a film waiting at the storyboard gate and releases the unused credits', async () => {
    const before = await balance();
    const { quote, film, job } = await createFilm({ ...brief, title: 'Cancelled film', aspect: '1:1' });
    await atGate(film.id, 'awaiting_storyboard_approval');

    const cancelled = await services().films.cancel(scope(), film.id);
    expect(cancelled.status).toBe('done');
    const ended = await waitForFilm(film.id, (f) => f.status === 'cancelled' && f.job?.status === 'cancelled');
    expect(ended.waitingFor).toBeNull();
    expect(ended.output).toBeNull();
    expect((await finished(job.id)).status).toBe('cancelled');

    // Script and storyboard were made and paid for; the render's share comes back.
    expect(await entriesFor(job.id)).toEqual([
      { kind: 'reserve', amount: 50, key: `quote:${quote.id}` },
      { kind: 'capture', amount: 10, key: `${job.id}:capture:script-0` },
      { kind: 'capture', amount: 10, key: `${job.id}:capture:storyboard-0` },
      { kind: 'release', amount: 30, key: `${job.id}:release` },
    ]);
    const after = await balance();
    expect(after).toEqual({ available: before.available - 20, held: 0, spent: before.spent + 20 });

    await expect(services().films.approve(scope(), film.id)).rejects.toMatchObject({ code: 'conflict' });
    await expect(services().films.cancel(scope(), film.id)).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('product CSV import', () => {
  async function importedProducts(sourceUrl: string) {
    return acrossWorkspaces(platform.container.orm.em).find(
      Product,
      { workspace: tenant.workspaceId, sourceUrl },
      { orderBy: { title: 'asc', id: 'asc' } },
    );
  }

  it('imports 250 rows in batches of 100, reports the bad rows by number, and creates untrusted products', async () => {
    const job = await services().productImports.startCsvImport(scope(), csvUrl('/products.csv'));
    expect(job.kind).toBe('product_import');
    const done = await finished(job.id);
    expect({ status: done.status, error: done.error }).toEqual({ status: 'succeeded', error: null });
    expect(done.result).toEqual({ rows: GOOD_ROWS + 2, created: GOOD_ROWS, skipped: 2, errors: badRows });
    expect(badRows.map((bad) => bad.row)).toEqual([122, 233]);

    const steps = await acrossWorkspaces(platform.container.orm.em).find(
      JobStep,
      { job: job.id },
      { orderBy: { name: 'asc' } },
    );
    expect(steps.map((step) => step.name)).toEqual(['csv', 'rows-0', 'rows-100', 'rows-200']);

    const products = await importedProducts(csvUrl('/products.csv'));
    expect(products).toHaveLength(GOOD_ROWS);
    expect(new Set(products.map((p) => p.title)).size).toBe(GOOD_ROWS);
    expect(products.map((p) => p.title)).toEqual(Array.from({ length: GOOD_ROWS }, (_, i) => goodTitle(i + 1)));
    for (const product of products) {
      expect(product.origin).toBe('csv_import');
      expect(product.untrusted).toBe(true);
    }
    expect(products[6]).toMatchObject({
      title: goodTitle(7),
      description: 'Woven cotton, size 7',
      priceMinor: 750,
      currency: 'EUR',
      sku: 'SKU-7',
      attributes: { colour: 'red' },
    });
    expect(products.some((p) => p.title === 'Broken price item' || p.sku === 'SKU-EMPTY')).toBe(false);
  });

  it('imports the same file again only under a new job: each job creates every row once', async () => {
    const before = await importedProducts(csvUrl('/products.csv'));
    expect(before).toHaveLength(GOOD_ROWS);
    const job = await services().productImports.startCsvImport(scope(), csvUrl('/products.csv'));
    const done = await finished(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.result).toMatchObject({ rows: GOOD_ROWS + 2, created: GOOD_ROWS, skipped: 2 });

    const after = await importedProducts(csvUrl('/products.csv'));
    expect(after).toHaveLength(2 * GOOD_ROWS);
    const perTitle = new Map<string, number>();
    for (const product of after) perTitle.set(product.title, (perTitle.get(product.title) ?? 0) + 1);
    expect(perTitle.size).toBe(GOOD_ROWS);
    expect([...perTitle.values()].every((count) => count === 2)).toBe(true);
    const firstIds = new Set(before.map((p) => p.id));
    expect(after.filter((p) => !firstIds.has(p.id))).toHaveLength(GOOD_ROWS);
  });

  it("copies each row's images into the media store after its batch, and says which could not be copied", async () => {
    const job = await services().productImports.startCsvImport(scope(), csvUrl('/with-images.csv'));
    const done = await finished(job.id);
    expect({ status: done.status, result: done.result }).toEqual({
      status: 'succeeded',
      result: { rows: 3, created: 3, skipped: 0, errors: [] },
    });
    const products = await importedProducts(csvUrl('/with-images.csv'));
    const byTitle = Object.fromEntries(products.map((p) => [p.title, p]));
    expect(byTitle['Pictured mug']).toMatchObject({
      storedImages: [
        {
          key: expect.stringMatching(new RegExp(`^${tenant.workspaceId}/products/${byTitle['Pictured mug']!.id}/`)),
          sourceUrl: csvUrl('/img/mug.png'),
          mimeType: 'image/png',
          width: 40,
          height: 30,
          bytes: PICTURE.length,
        },
      ],
      imageFailures: [],
    });
    const stored = await platform.container.services.media.get(byTitle['Pictured mug']!.storedImages[0]!.key);
    expect(stored?.bytes.equals(PICTURE)).toBe(true);
    expect(byTitle['Mug with a lost picture']).toMatchObject({
      storedImages: [],
      imageFailures: [{ sourceUrl: csvUrl('/img/gone.png'), reason: 'the server answered HTTP 404' }],
    });
    expect(byTitle['Mug without a picture']).toMatchObject({ storedImages: [], imageFailures: [] });
  });

  it('fails a CSV without a title column with validation_failed and creates nothing', async () => {
    const count = () => acrossWorkspaces(platform.container.orm.em).count(Product, { workspace: tenant.workspaceId });
    const before = await count();
    const job = await services().productImports.startCsvImport(scope(), csvUrl('/no-title.csv'));
    const done = await finished(job.id);
    expect(done.status).toBe('failed');
    expect(done.error).toEqual({
      code: 'validation_failed',
      message: expect.stringContaining('"title" (or "name") column'),
    });
    expect(done.result).toBeNull();
    expect(await count()).toBe(before);
    expect(csvRequests).toContain('/no-title.csv');
  });
});
