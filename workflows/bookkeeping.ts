/**
 * The bookkeeping every long-job workflow does (job status and progress, credit postings, campaign and film
 * statuses) runs as local activities. Each one is a short database write that is safe to run again
 * (activities run at least once, and these are idempotent), so it does not need the task queue: a local
 * activity runs in the worker inside the workflow task and is recorded as one marker, where a regular
 * activity costs three history events and another workflow-task round trip through the server. With a dozen
 * such calls per generation that was most of the Temporal server's work, and what new starts queued behind
 * (docs/benchmarks.md, "History", has the `bench:jobs` figures).
 *
 * The creative work (steps, renders, imports) stays in regular activities: it is long, heartbeats, and must
 * survive its worker.
 *
 * Runs started before bookkeeping went local recorded regular activities; the `patched` marker keeps them
 * replaying with what they recorded.
 */
import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const OPTIONS = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', maximumInterval: '10s' },
} as const;

const local = proxyLocalActivities<Activities>(OPTIONS);
const scheduled = proxyActivities<Activities>(OPTIONS);

const LOCAL_BOOKKEEPING_PATCH = 'local-bookkeeping';

/** The bookkeeping activities; call it first thing in a workflow function, before any other command. */
export function bookkeepingActivities(): typeof local {
  return patched(LOCAL_BOOKKEEPING_PATCH) ? local : scheduled;
}
