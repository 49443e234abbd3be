/**
 * Every activity the worker registers, built from its dependencies. Workflows import only the *type* of this
 * object (`proxyActivities<Activities>`), never the implementations.
 */
import { createAnalyticsActivities } from './analytics.ts';
import { createChannelActivities } from './channels.ts';
import { createCreditActivities } from './credits.ts';
import type { ActivityDeps } from './deps.ts';
import { createFilmActivities } from './films.ts';
import { createGenerationActivities } from './generation.ts';
import { createImportActivities } from './imports.ts';
import { createJobActivities } from './jobs.ts';
import { createPublishingActivities } from './publishing.ts';
import { createRenderActivities } from './renders.ts';
import { createSelftestActivities } from './selftest.ts';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createJobActivities(deps),
    ...createSelftestActivities(deps),
    ...createPublishingActivities(deps),
    ...createCreditActivities(deps),
    ...createGenerationActivities(deps),
    ...createRenderActivities(deps),
    ...createFilmActivities(deps),
    ...createImportActivities(deps),
    ...createAnalyticsActivities(deps),
    ...createChannelActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
