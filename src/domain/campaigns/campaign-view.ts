/** A campaign as agents and pages read it. */
import type { CampaignStatus } from './campaign-status.ts';
import type { Campaign } from './campaign.entity.ts';

export interface CampaignView {
  id: string;
  name: string;
  /** Internal notes: never published. */
  objective: string | null;
  /** Shown on the brand site (the campaign page's lead); null: the site uses the active variant's copy. */
  publicSummary: string | null;
  status: CampaignStatus;
  channels: string[];
  /** Goal keys whose conversions count for this campaign; empty: every goal. */
  conversionGoals: string[];
  productIds: string[];
  slug: string;
  startsAt: string | null;
  endsAt: string | null;
  publishedAt: string | null;
  variantCount: number;
  activeDeployments: number;
  createdAt: string;
  updatedAt: string;
}

/** What a campaign's view is made of (an entity, or a row of the list query). */
export type CampaignViewFields = Pick<
  Campaign,
  | 'id'
  | 'name'
  | 'objective'
  | 'publicSummary'
  | 'status'
  | 'channels'
  | 'conversionGoals'
  | 'slug'
  | 'startsAt'
  | 'endsAt'
  | 'publishedAt'
  | 'createdAt'
  | 'updatedAt'
>;

/** The counts and product ids a view adds to the campaign's own fields. */
export interface CampaignStats {
  variantCount: number;
  activeDeployments: number;
  productIds: string[];
}

export const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

export function toCampaignView(campaign: CampaignViewFields, stats: CampaignStats): CampaignView {
  return {
    id: campaign.id,
    name: campaign.name,
    objective: campaign.objective ?? null,
    publicSummary: campaign.publicSummary ?? null,
    status: campaign.status,
    channels: campaign.channels,
    conversionGoals: campaign.conversionGoals,
    productIds: stats.productIds,
    slug: campaign.slug,
    startsAt: iso(campaign.startsAt),
    endsAt: iso(campaign.endsAt),
    publishedAt: iso(campaign.publishedAt),
    variantCount: stats.variantCount,
    activeDeployments: stats.activeDeployments,
    createdAt: campaign.createdAt.toISOString(),
    updatedAt: campaign.updatedAt.toISOString(),
  };
}
