/**
 * Every activity the worker registers, built from its dependencies. Workflows import only the *type* of this
 * object (`proxyActivities<Activities>`), never the implementations.
 */
import type { ActivityDeps } from './deps.ts';
import { createJobActivities } from './jobs.ts';
import { createPublishingActivities } from './publishing.ts';
import { createSelftestActivities } from './selftest.ts';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createJobActivities(deps),
    ...createSelftestActivities(deps),
    ...createPublishingActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
