/**
 * One long-lived republish workflow per workspace (`republish:<workspaceId>:site`), started or signalled by
 * every change that alters the brand site. It coalesces bursts: while requests keep arriving it rebuilds, and
 * after 30 idle seconds it completes (the next request starts a new run) — unless a deployment or campaign
 * window opens or closes later: pages are rendered for their publication time, so it then waits (a durable
 * timer) until that moment and republishes, which puts scheduled deployments live on time.
 */
import {
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

export const republishRequested = defineSignal<[{ reason: string }]>('republishRequested');

const { publishSite } = proxyActivities<Activities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

const IDLE_MS = 30_000;

export async function republishWorkflow(input: {
  workspaceId: string;
  /** Carried across continue-as-new: the next window boundary still to honour. */
  nextChangeAt?: string | null;
}): Promise<{ builds: number }> {
  const reasons: string[] = [];
  setHandler(republishRequested, ({ reason }) => {
    reasons.push(reason);
  });
  let builds = 0;
  let nextChangeAt = input.nextChangeAt ?? null;
  for (;;) {
    // Workflow time (Date.now() is deterministic here): wait for a request, the next window boundary, or idle.
    const untilChange = nextChangeAt ? Math.max(1, Date.parse(nextChangeAt) - Date.now()) : null;
    const requested = await condition(() => reasons.length > 0, untilChange ?? IDLE_MS);
    if (!requested) {
      if (untilChange === null) break;
      reasons.push('scheduled window boundary');
    }
    const published = await publishSite({ workspaceId: input.workspaceId, reasons: reasons.splice(0) });
    nextChangeAt = published.nextChangeAt;
    builds += 1;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof republishWorkflow>({ ...input, nextChangeAt });
    }
  }
  // A request that arrived as the idle timer fired must not be lost: carry on in a new run.
  if (reasons.length > 0) await continueAsNew<typeof republishWorkflow>({ ...input, nextChangeAt });
  return { builds };
}
