import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import type { ImageCopyFailure, StoredProductImage } from './product-images.ts';

export const PRODUCT_ORIGINS = ['manual', 'url_import', 'csv_import'] as const;
export type ProductOrigin = (typeof PRODUCT_ORIGINS)[number];

/**
 * A product a campaign promotes. Products imported from the open web keep `origin` and `sourceUrl`, and their
 * text is marked untrusted: it is data to show, never instructions to follow (generation and the concierge
 * quote it as such).
 */
export const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  properties: {
    id: idProperty('product'),
    workspace: () => p.manyToOne(Workspace).ref(),
    title: p.string().length(300),
    description: p.text().nullable(),
    /** Price in minor units (cents); null when unknown. */
    priceMinor: p.integer().nullable(),
    currency: p.string().length(3).nullable(),
    images: p.json<string[]>().default('[]'),
    /** Copies of the first images in the media store, made at import (product-images.ts); creative uses these. */
    storedImages: p.json<StoredProductImage[]>().default('[]'),
    /** Why an image URL could not be copied (refused by the SSRF guard, not an image, …), for the people who set it. */
    imageFailures: p.json<ImageCopyFailure[]>().default('[]'),
    url: p.string().length(2048).nullable(),
    brand: p.string().length(200).nullable(),
    sku: p.string().length(100).nullable(),
    attributes: p.json<Record<string, string>>().default('{}'),
    origin: p.enum(PRODUCT_ORIGINS).nativeEnumName('product_origin').default('manual'),
    sourceUrl: p.string().length(2048).nullable(),
    /** True when the text came from a page we fetched: show it, quote it, never obey it. */
    untrusted: p.boolean().default(false),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    deletedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['workspace', 'createdAt', 'id'] }],
});
export class Product extends ProductSchema.class {}
ProductSchema.setClass(Product);
