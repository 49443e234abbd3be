/**
 * What the campaigns area accepts, defined once: the services parse with these, `manage_campaigns` parses each
 * action with them (which fields an action takes, and which it requires, is decided here) and builds its
 * advertised fields from the same atoms (adding descriptions on top).
 */
import { z } from 'zod';
import { GoalKey, HttpUrl, IsoDateTime, ProductId } from '../shared/schemas.ts';
import { CHANNELS } from './campaign.entity.ts';
import { DEPLOYMENT_STATUSES } from './deployment.entity.ts';
import { VARIANT_STATUSES } from './variant.entity.ts';

export { CampaignId, DeploymentId, ProductId, VariantId, ZoneId } from '../shared/schemas.ts';

/** Per-channel copy of a variant. Closed objects: a misspelt key is an error the agent can fix, not silence. */
export const ChannelFieldsSchema = z
  .object({
    email: z
      .object({ subject: z.string().max(150).optional(), preheader: z.string().max(200).optional() })
      .strict()
      .optional(),
    social: z
      .object({ caption: z.string().max(2200).optional(), hashtags: z.array(z.string().max(60)).max(30).optional() })
      .strict()
      .optional(),
    web: z
      .object({ eyebrow: z.string().max(80).optional(), sectionTitle: z.string().max(120).optional() })
      .strict()
      .optional(),
  })
  .strict();

export const ImageRefSchema = z.object({
  url: HttpUrl,
  alt: z.string().max(300).optional(),
  /** Set by generation (the media store key); agents send url and alt only. */
  mediaId: z.string().max(60).optional(),
});

export const CampaignFields = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  objective: z.string().trim().max(2000, 'must be at most 2000 characters').nullish(),
  publicSummary: z.string().trim().max(1000, 'must be at most 1000 characters').nullish(),
  productIds: z.array(ProductId).max(20, 'at most 20 products').optional(),
  channels: z.array(z.enum(CHANNELS)).max(3).optional(),
  conversionGoals: z
    .array(GoalKey)
    .max(10, 'at most 10 goals')
    .transform((goals) => [...new Set(goals)])
    .optional(),
  startsAt: IsoDateTime.nullish(),
  endsAt: IsoDateTime.nullish(),
});

/** A campaign's changes: any field, and the two states a person may set (archive and restore). */
export const CampaignUpdate = CampaignFields.partial().extend({
  status: z
    .enum(['ready', 'archived'], { error: 'may only be set to "archived" (archive) or "ready" (restore)' })
    .optional(),
});

export const VariantFields = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  headline: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  body: z.string().trim().min(1, 'must not be empty').max(5000, 'must be at most 5000 characters'),
  callToAction: z.string().trim().min(1, 'must not be empty').max(60, 'must be at most 60 characters'),
  ctaUrl: HttpUrl.nullish(),
  imageRefs: z.array(ImageRefSchema).max(6, 'at most 6 images').optional(),
  channelFields: ChannelFieldsSchema.optional(),
  weight: z.number().int().min(0).max(100).optional(),
  status: z.enum(VARIANT_STATUSES).optional(),
  isControl: z.boolean().optional(),
});

/** A variant's changes; `expectedVersion` refuses the save when someone else saved first. */
export const VariantUpdate = VariantFields.partial().extend({ expectedVersion: z.number().int().min(1).optional() });

/** A deployment's placement: its priority in a shared zone (higher wins) and its schedule. */
export const DeploymentFields = z.object({
  priority: z.number().int().min(-100).max(100).optional(),
  startsAt: IsoDateTime.nullish(),
  endsAt: IsoDateTime.nullish(),
});

/** A deployment's changes: the placement, and pausing, resuming or ending it. */
export const DeploymentUpdate = DeploymentFields.extend({ status: z.enum(DEPLOYMENT_STATUSES).optional() });

export type CampaignInput = z.input<typeof CampaignFields>;
export type CampaignUpdateInput = z.input<typeof CampaignUpdate>;
export type VariantInput = z.input<typeof VariantFields>;
export type VariantUpdateInput = z.input<typeof VariantUpdate>;
export type DeploymentInput = z.input<typeof DeploymentFields>;
export type DeploymentUpdateInput = z.input<typeof DeploymentUpdate>;
