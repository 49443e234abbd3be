/**
 * The campaigns area as callers use it: campaigns (`campaigns.ts`, with the list reader in
 * `campaign-list.ts`), their variants (`variants.ts`) and deployments (`deployments.ts`) behind one service.
 * Every query is scoped by workspace; entities of another workspace are "not found". State rules live in
 * `campaign-status.ts`; every change that alters what the brand site shows (publish, deploy, deployment
 * changes, variant saves and deletes on published campaigns, archiving) requests a republish.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { createCampaignOperations, type RepublishPort } from './campaigns.ts';
import { createDeploymentOperations } from './deployments.ts';
import { createVariantOperations } from './variants.ts';

export type { RepublishPort } from './campaigns.ts';
export type { CampaignView } from './campaign-view.ts';
export type { VariantView } from './variants.ts';
export type { DeploymentView } from './deployments.ts';

export function createCampaignsService(deps: { republish: RepublishPort; orm: MikroORM }) {
  return {
    ...createCampaignOperations(deps),
    ...createVariantOperations(deps),
    ...createDeploymentOperations(deps),
  };
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
