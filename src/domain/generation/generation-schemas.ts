/**
 * What a campaign generation accepts, defined once: `generate_campaign` parses its actions with these, and the
 * launcher receives the parsed, typed result.
 */
import { z } from 'zod';
import { CHANNELS } from '../campaigns/campaign.entity.ts';
import { GENERATION_STEPS } from '../credits/price-list.ts';
import { CampaignId, ProductId } from '../shared/schemas.ts';

const Common = {
  includeImages: z.boolean().optional(),
  variantCount: z.number().int().min(1, 'must be at least 1').max(5, 'must be at most 5').optional(),
  channels: z.array(z.enum(CHANNELS)).min(1).max(3).optional(),
  style: z.string().trim().max(300).nullish(),
  /** The accepted quote; without it the call only quotes. */
  quoteId: z.string().max(40).optional(),
};

export const GenerationStartSchema = z.object({
  intent: z.string().trim().min(3, 'must describe what the campaign should do').max(2000),
  campaignId: CampaignId.optional(),
  name: z.string().trim().min(1).max(200).optional(),
  productIds: z.array(ProductId).max(20).optional(),
  ...Common,
});

export const GenerationRegenerateSchema = z.object({
  campaignId: CampaignId,
  fromStep: z.enum(GENERATION_STEPS, { error: `must be one of ${GENERATION_STEPS.join(', ')}` }),
  intent: z.string().trim().min(3).max(2000).optional(),
  ...Common,
});

export type GenerationStartInput = z.output<typeof GenerationStartSchema>;
export type GenerationRegenerateInput = z.output<typeof GenerationRegenerateSchema>;
