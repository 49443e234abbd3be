/**
 * Starts product CSV imports: each is a job on Temporal (`workflows/product-import.ts`) that fetches the file
 * through the SSRF guard and imports its rows in batches. Imports are free; they are long, so they return a
 * job (and an MCP task handle) at once.
 */
import type { JobsService } from '../jobs/jobs.service.ts';
import type { Job } from '../jobs/job.entity.ts';
import { newId } from '../shared/ids.ts';
import { HttpUrl } from '../shared/schemas.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';

export const PRODUCT_IMPORT_KIND = 'product_import';

/** Whether a URL names a CSV file (by its path), the default for `format` when the caller gives none. */
export function looksLikeCsv(url: string): boolean {
  try {
    return /\.csv$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

export function createProductImportsService(deps: { jobs: JobsService }) {
  return {
    async startCsvImport(scope: WorkspaceScope, rawUrl: string): Promise<Job> {
      const sourceUrl = parseInput(HttpUrl, rawUrl, 'sourceUrl');
      const jobId = newId('job');
      const { job } = await deps.jobs.start(scope, {
        jobId,
        kind: PRODUCT_IMPORT_KIND,
        workflowType: 'productImportWorkflow',
        businessKey: jobId,
        input: { sourceUrl, actor: scope.actor },
        summary: `Import products from ${new URL(sourceUrl).host}`,
      });
      return job;
    },
  };
}
