/**
 * One long-lived republish workflow per workspace (`republish:<workspaceId>:site`), started or signalled by
 * every change that alters the brand site. It coalesces bursts: while requests keep arriving it rebuilds, and
 * after 30 idle seconds it completes (the next request starts a new run).
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

export async function republishWorkflow(input: { workspaceId: string }): Promise<{ builds: number }> {
  const reasons: string[] = [];
  setHandler(republishRequested, ({ reason }) => {
    reasons.push(reason);
  });
  let builds = 0;
  for (;;) {
    const requested = await condition(() => reasons.length > 0, '30s');
    if (!requested) break;
    await publishSite({ workspaceId: input.workspaceId, reasons: reasons.splice(0) });
    builds += 1;
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof republishWorkflow>(input);
  }
  // A request that arrived as the idle timer fired must not be lost: carry on in a new run.
  if (reasons.length > 0) await continueAsNew<typeof republishWorkflow>(input);
  return { builds };
}
