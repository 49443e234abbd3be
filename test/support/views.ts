/**
 * Views as the domain hands them out (products, brands), for tests that drive engines and renderers without a
 * database: every field present with a neutral value, the fields a test cares about given.
 */
import { DEFAULT_BRANDBOOK, DEFAULT_CONCIERGE } from '../../src/domain/brand/brand-defaults.ts';
import type { BrandView } from '../../src/domain/brand/brand.service.ts';
import type { ProductView } from '../../src/domain/products/products.service.ts';

const STAMP = '2026-01-01T00:00:00.000Z';

export function productView(fields: Partial<ProductView> & Pick<ProductView, 'id' | 'title'>): ProductView {
  return {
    description: null,
    price: null,
    currency: null,
    images: [],
    storedImages: [],
    imageFailures: [],
    url: null,
    brand: null,
    sku: null,
    attributes: {},
    origin: 'manual',
    sourceUrl: null,
    untrusted: false,
    createdAt: STAMP,
    updatedAt: STAMP,
    ...fields,
  };
}

/** A brand as the creative evaluation briefs describe one: name, voice and colours. */
export interface BriefBrand {
  displayName: string;
  tone: string | null;
  personality: string[];
  doSay: string[];
  dontSay: string[];
  colors: Record<string, string>;
}

export function brandView(brand: BriefBrand): BrandView {
  return {
    brandbook: { ...DEFAULT_BRANDBOOK, colors: { ...DEFAULT_BRANDBOOK.colors, ...brand.colors } },
    profile: {
      displayName: brand.displayName,
      tagline: null,
      description: null,
      website: null,
      contactEmail: null,
      sameAs: [],
    },
    voice: {
      tone: brand.tone,
      personality: brand.personality,
      doSay: brand.doSay,
      dontSay: brand.dontSay,
      sampleCopy: null,
    },
    concierge: DEFAULT_CONCIERGE,
    version: 1,
    updatedAt: null,
  };
}
