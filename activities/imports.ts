/**
 * Product CSV import activities. The file is fetched once through the SSRF guard and its parsed rows are
 * stored on the job (`job_steps` "csv"); each batch then records its outcome in the same transaction as the
 * products it creates (`rows-<start>`), so a retried or resumed batch never creates a product twice.
 */
import { Context } from '@temporalio/activity';
import { FetchRefusedError } from '../src/net/safe-fetch.ts';
import { createProductImageStore } from '../src/domain/products/product-images.ts';
import { JobStep } from '../src/domain/jobs/job.entity.ts';
import { MAX_CSV_BYTES, parseProductCsv, type CsvRow } from '../src/domain/products/csv-import.ts';
import { Product } from '../src/domain/products/product.entity.ts';
import { ProductFields } from '../src/domain/products/products.service.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { ValidationError } from '../src/errors.ts';
import type { ActivityDeps } from './deps.ts';
import { translateErrors } from './support/activity-errors.ts';
import { activityScope } from './support/scope.ts';
import { ownedBy } from '../src/domain/shared/scope.ts';

export interface BatchResult {
  [key: string]: unknown;
  created: number;
  skipped: number;
  errors: { row: number; message: string }[];
  /** The products the batch created, for the step that copies their images (absent in batches run before it). */
  productIds?: string[];
}

export function createImportActivities({ orm, safeFetch, studio }: ActivityDeps) {
  const images = createProductImageStore({ safeFetch, media: studio.media });
  return {
    async fetchProductCsv(input: { jobId: string; workspaceId: string; sourceUrl: string }): Promise<{ rows: number }> {
      return translateErrors(async () => {
        const em = orm.em.fork();
        const stored = await em.findOne(JobStep, { job: input.jobId, name: 'csv' });
        if (stored?.output) return { rows: (stored.output as { rows: CsvRow[] }).rows.length };
        let response;
        try {
          response = await safeFetch.fetch(input.sourceUrl, {
            accept: [
              'text/csv',
              'text/plain',
              'application/csv',
              'application/vnd.ms-excel',
              'text/comma-separated-values',
            ],
            maxBytes: MAX_CSV_BYTES,
            timeoutMs: 30_000,
            maxRedirects: 5,
          });
        } catch (error) {
          if (error instanceof FetchRefusedError)
            throw new ValidationError(`Could not fetch ${input.sourceUrl}: ${error.message}`);
          throw error;
        }
        if (response.status !== 200)
          throw new ValidationError(`Could not fetch ${input.sourceUrl}: HTTP ${response.status}`);
        const rows = parseProductCsv(new TextDecoder('utf-8').decode(response.body));
        await em
          .createQueryBuilder(JobStep)
          .insert({
            id: newId('jobStep'),
            job: input.jobId,
            name: 'csv',
            attempt: 1,
            output: { rows, sourceUrl: response.url },
            completedAt: new Date(),
          })
          .onConflict(['job', 'name'])
          .ignore()
          .execute('run');
        return { rows: rows.length };
      });
    },

    async importProductRows(input: {
      jobId: string;
      workspaceId: string;
      start: number;
      count: number;
      actor: string;
    }): Promise<BatchResult> {
      return translateErrors(() =>
        activityScope(orm, input).em.transactional(async (tx) => {
          const name = `rows-${input.start}`;
          const inserted = await tx
            .createQueryBuilder(JobStep)
            .insert({ id: newId('jobStep'), job: input.jobId, name, attempt: 1, output: null, completedAt: new Date() })
            .onConflict(['job', 'name'])
            .ignore()
            .execute('run');
          if (inserted.affectedRows === 0) {
            return (await tx.findOneOrFail(JobStep, { job: input.jobId, name })).output as BatchResult;
          }
          const csv = await tx.findOneOrFail(JobStep, { job: input.jobId, name: 'csv' });
          const { rows, sourceUrl } = csv.output as { rows: CsvRow[]; sourceUrl: string };
          const result: BatchResult = { created: 0, skipped: 0, errors: [], productIds: [] };
          for (const { row, fields } of rows.slice(input.start, input.start + input.count)) {
            const parsed = ProductFields.safeParse(fields);
            if (!parsed.success) {
              result.skipped += 1;
              const issue = parsed.error.issues[0]!;
              result.errors.push({ row, message: `${issue.path.join('.') || 'row'} ${issue.message}` });
              continue;
            }
            const data = parsed.data;
            const product = tx.create(Product, {
              ...ownedBy(input),
              title: data.title,
              description: data.description ?? null,
              priceMinor: data.price === null || data.price === undefined ? null : Math.round(data.price * 100),
              currency: data.currency ?? null,
              images: data.images ?? [],
              storedImages: [],
              imageFailures: [],
              url: data.url ?? null,
              brand: data.brand ?? null,
              sku: data.sku ?? null,
              attributes: data.attributes ?? {},
              origin: 'csv_import',
              sourceUrl,
              untrusted: true,
              deletedAt: null,
            });
            result.created += 1;
            result.productIds!.push(product.id);
          }
          await tx.flush();
          await tx.nativeUpdate(JobStep, { job: input.jobId, name }, { output: result });
          return result;
        }),
      );
    },

    /**
     * Copies the images of the products one batch created into the media store, outside the batch's
     * transaction (fetching from the open web must not hold it open). Safe to repeat: keys are content
     * addressed and each product's copies are replaced as a whole.
     */
    async copyProductImages(input: { workspaceId: string; productIds: string[] }): Promise<{ copied: number }> {
      return translateErrors(async () => {
        const { em } = activityScope(orm, input);
        const products = await em.find(Product, { id: { $in: input.productIds }, deletedAt: null });
        let copied = 0;
        for (const product of products) {
          if (product.images.length === 0) continue;
          Context.current().heartbeat(product.id);
          const { stored, failures } = await images.copyImages(input.workspaceId, product.id, product.images);
          product.storedImages = stored;
          product.imageFailures = failures;
          copied += stored.length;
        }
        await em.flush();
        return { copied };
      });
    },
  };
}
