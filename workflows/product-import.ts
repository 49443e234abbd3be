/**
 * A product CSV import: fetch the file from the open web (SSRF-guarded), then import its rows in batches and
 * copy each batch's product images into the media store.
 * Each batch records its rows by (job, row number), so a retried or resumed batch never creates a product
 * twice; progress is reported per batch. Cancellation stops between batches; rows already imported stay.
 * Imports are free: no credits are involved.
 */
import { patched, proxyActivities } from '@temporalio/workflow';
import { endJobAfterError } from './job-endings.ts';
import { bookkeepingActivities } from './bookkeeping.ts';
import type { Activities } from '../activities/index.ts';
import type { ProductImportInput } from '../src/domain/jobs/workflow-inputs.ts';

export interface ProductImportResult {
  [key: string]: unknown;
  rows: number;
  created: number;
  skipped: number;
  errors: { row: number; message: string }[];
}

const BATCH = 100;

const importer = proxyActivities<Activities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '30s',
  retry: {
    initialInterval: '1s',
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['validation_failed', 'not_found', 'conflict'],
  },
});

export async function productImportWorkflow(input: ProductImportInput): Promise<ProductImportResult> {
  const bookkeeping = bookkeepingActivities();
  const { jobId, workspaceId } = input;
  // Inside the try: a workflow cancelled before its first activity must still refund and close its job.
  try {
    await bookkeeping.markJobRunning(jobId);
    const { rows } = await importer.fetchProductCsv({ jobId, workspaceId, sourceUrl: input.sourceUrl });
    const result: ProductImportResult = { rows, created: 0, skipped: 0, errors: [] };
    for (let start = 0; start < rows; start += BATCH) {
      const batch = await importer.importProductRows({
        jobId,
        workspaceId,
        start,
        count: Math.min(BATCH, rows - start),
        actor: input.actor,
      });
      // Histories from before images were copied at import replay without this step.
      if (batch.productIds?.length && patched('copy-product-images')) {
        await importer.copyProductImages({ workspaceId, productIds: batch.productIds });
      }
      result.created += batch.created;
      result.skipped += batch.skipped;
      result.errors.push(...batch.errors.slice(0, Math.max(0, 100 - result.errors.length)));
      await bookkeeping.reportJobProgress(jobId, {
        fraction: Math.min(1, (start + BATCH) / rows),
        step: 'import',
        message: `${Math.min(rows, start + BATCH)} of ${rows} rows`,
      });
    }
    await bookkeeping.completeJob(jobId, result);
    return result;
  } catch (error) {
    return endJobAfterError({
      error,
      jobId,
      bookkeeping,
      fallback: { code: 'import_failed', message: 'The import failed' },
    });
  }
}
