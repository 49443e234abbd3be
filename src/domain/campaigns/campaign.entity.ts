import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { Product } from '../products/product.entity.ts';
import { CAMPAIGN_STATUSES } from './campaign-status.ts';

export const CHANNELS = ['web', 'email', 'social'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * A marketing campaign: what it promotes (products), why (objective), and its variants and deployments.
 *
 * Public or internal: the name, the public summary, the schedule and the active variants' copy are what a
 * published brand site shows; the objective, brief, channels and conversion goals are the team's working
 * notes and never leave the platform (`domain/publishing/site-snapshot.ts` copies only the public fields).
 */
export const CampaignSchema = defineEntity({
  name: 'Campaign',
  tableName: 'campaigns',
  properties: {
    id: idProperty('campaign'),
    workspace: () => p.manyToOne(Workspace).ref(),
    /** Public: the title of the campaign's page on the brand site. */
    name: p.string().length(200),
    /** Internal: what the team wants the campaign to achieve (feeds generation). Never published. */
    objective: p.text().nullable(),
    /** Public: the lead text of the campaign's page and its line in lists, llms.txt and search results. */
    publicSummary: p.text().nullable(),
    status: p.enum(CAMPAIGN_STATUSES).nativeEnumName('campaign_status').default('draft'),
    /** The status to return to when a generation ends (a published campaign stays published). */
    statusBeforeGeneration: p.enum(CAMPAIGN_STATUSES).nativeEnumName('campaign_status').nullable(),
    channels: p.array<string>().default([]),
    /**
     * Conversion goal keys that count for this campaign (e.g. `signup`, `purchase`). Empty: every goal counts.
     * A conversion is attributed to the variant its session was first exposed to (see analytics rollups).
     */
    conversionGoals: p.array<string>().default([]),
    products: () => p.manyToMany(Product).pivotTable('campaign_products'),
    /** Output of the generation's brief step (audience, angle, key messages), when generated. */
    brief: p.json<Record<string, unknown>>().nullable(),
    startsAt: p.datetime().columnType('timestamptz').nullable(),
    endsAt: p.datetime().columnType('timestamptz').nullable(),
    /** URL-safe name of the campaign's page on the brand site; unique per workspace. */
    slug: p.string().length(80),
    publishedAt: p.datetime().columnType('timestamptz').nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    deletedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['workspace', 'createdAt', 'id'] }, { properties: ['workspace', 'status'] }],
  uniques: [{ properties: ['workspace', 'slug'] }],
});
export class Campaign extends CampaignSchema.class {}
CampaignSchema.setClass(Campaign);
