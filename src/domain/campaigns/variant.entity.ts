import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { Campaign } from './campaign.entity.ts';

export interface ImageRef {
  url: string;
  alt?: string;
  /** Media id when the image was generated and stored by the platform. */
  mediaId?: string;
}

/** Per-channel copy: an email's subject line, a social post's caption, a web page's section title. */
export interface ChannelFields {
  email?: { subject?: string; preheader?: string };
  social?: { caption?: string; hashtags?: string[] };
  web?: { eyebrow?: string; sectionTitle?: string };
}

export const VARIANT_STATUSES = ['active', 'paused'] as const;

/**
 * One version of a campaign's creative. Visitors are split between a campaign's active variants by weight;
 * the control is the baseline analytics compares others with. Every save bumps `version` and appends the
 * previous state to the variant's history. Deleting is soft, so analytics keep their subject.
 */
export const VariantSchema = defineEntity({
  name: 'Variant',
  tableName: 'variants',
  properties: {
    id: idProperty('variant'),
    workspace: () => p.manyToOne(Workspace).ref(),
    campaign: () => p.manyToOne(Campaign).ref(),
    name: p.string().length(100),
    headline: p.string().length(200),
    body: p.text(),
    callToAction: p.string().length(60),
    ctaUrl: p.string().length(2048).nullable(),
    imageRefs: p.json<ImageRef[]>().default('[]'),
    channelFields: p.json<ChannelFields>().default('{}'),
    status: p.enum(VARIANT_STATUSES).nativeEnumName('variant_status').default('active'),
    /** Traffic share among active variants (relative weight, 0–100). */
    weight: p.integer().default(50),
    isControl: p.boolean().default(false),
    /** `generated` by the AI studio or `manual`. */
    source: p.string().length(20).default('manual'),
    version: p.integer().default(1),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    deletedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['workspace', 'campaign', 'createdAt'] }],
});
export class Variant extends VariantSchema.class {}
VariantSchema.setClass(Variant);

/** The state of a variant before each change (append-only history). */
export const VariantVersionSchema = defineEntity({
  name: 'VariantVersion',
  tableName: 'variant_versions',
  properties: {
    id: idProperty('variantVersion'),
    variant: () => p.manyToOne(Variant).ref().deleteRule('cascade'),
    version: p.integer(),
    snapshot: p.json<Record<string, unknown>>(),
    changedBy: p.string().length(200),
    createdAt: createdAtProperty(),
  },
  uniques: [{ properties: ['variant', 'version'] }],
});
export class VariantVersion extends VariantVersionSchema.class {}
VariantVersionSchema.setClass(VariantVersion);
