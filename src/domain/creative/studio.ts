/**
 * The creative studio: the engines a worker uses (copy, optional image model), the media store, and the
 * built-in composers for images, stills and videos. One object built once per worker from configuration
 * (`createStudio`), so activities never read configuration or pick providers themselves.
 */
import type { Config } from '../../config.ts';
import type { SafeFetch } from '../../net/safe-fetch.ts';
import type { BrandView } from '../brand/brand.service.ts';
import { createMediaStore, type MediaStore } from '../media/media-store.ts';
import { createProductImageStore } from '../products/product-images.ts';
import type { ProductView } from '../products/products.service.ts';
import {
  layoutComposition,
  renderPng,
  sniffImage,
  type ComposedImage,
  type EmbeddedImage,
  type Layout,
  type Palette,
} from './images/compose.ts';
import { createOpenAiEngines } from './openai/openai-engines.ts';
import { createBuiltinCopyEngine } from './text/builtin-copy-engine.ts';
import { formatProductPrice, type Market } from './text/market.ts';
import type { CopyDraft, CopyEngine, ImageGenerator } from './text/copy-engine.ts';

export interface VariantImageRequest {
  width: number;
  height: number;
  draft: Pick<CopyDraft, 'headline' | 'body' | 'callToAction'>;
  brand: BrandView;
  product: ProductView | null;
  productImage: EmbeddedImage | null;
  seed: string;
  /** 0..1 zoom of the product image (video motion). */
  zoom?: number;
  /** The campaign's market (its brief's): the price tag is written as it writes prices ("289,00 €"). */
  market?: Pick<Market, 'locale'> | null;
  /** Leave the body and call to action out (short video scenes that show one message). */
  headlineOnly?: boolean;
}

export interface CreativeStudio {
  copy: CopyEngine;
  /** An image model; null means images are composed by the built-in engine. */
  images: ImageGenerator | null;
  media: MediaStore;
  /**
   * The product's first image: its copy stored at import, else fetched through the SSRF guard; null when there
   * is none or it is not PNG/JPEG.
   */
  fetchProductImage(product: ProductView): Promise<EmbeddedImage | null>;
  composeVariantImage(request: VariantImageRequest): Buffer;
}

/** Stands in for the guarded fetcher where a studio has none: reading stored copies needs no fetching. */
const NO_FETCH: Pick<SafeFetch, 'fetch'> = {
  fetch: () => Promise.reject(new Error('this studio fetches nothing from the open web')),
};

export function paletteOf(brand: BrandView): Palette {
  return brand.brandbook.colors;
}

const same = (a: string | undefined, b: string | undefined) =>
  !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The SVG and layout of a variant's still or keyframe (line boxes, regions, colour pairs, for checks). Text
 * the picture would otherwise say twice is said once: a call-to-action scene (headline = call to action, body =
 * the brand's name) shows the brand's name once, above the headline; an offer headline that already states
 * the price gets no price tag.
 */
export function layoutVariant(request: VariantImageRequest): { svg: string; layout: Layout } {
  const { draft } = request;
  const eyebrow = request.brand.profile.displayName;
  // A body that only repeats the headline or the brand's name (the call-to-action scene's) is left out.
  const body =
    request.headlineOnly || same(draft.body, draft.headline) || same(draft.body, eyebrow) ? undefined : draft.body;
  const callToAction =
    request.headlineOnly || same(draft.callToAction, draft.headline) ? undefined : draft.callToAction;
  const price = formatProductPrice(request.product, request.market ?? null);
  return layoutComposition({
    width: request.width,
    height: request.height,
    palette: paletteOf(request.brand),
    eyebrow: same(eyebrow, draft.headline) ? undefined : eyebrow,
    headline: draft.headline,
    body,
    callToAction,
    badge: price && !draft.headline.includes(price) ? price : undefined,
    image: request.productImage,
    seed: request.seed,
    zoom: request.zoom,
  });
}

/** The variant's PNG with its SVG and layout. */
export function composeVariant(request: VariantImageRequest): ComposedImage {
  const { svg, layout } = layoutVariant(request);
  return { png: renderPng(svg), svg, layout };
}

export function createStudio(deps: {
  copy: CopyEngine;
  images: ImageGenerator | null;
  media: MediaStore;
  safeFetch: Pick<SafeFetch, 'fetch'> | null;
}): CreativeStudio {
  const productImages = createProductImageStore({ safeFetch: deps.safeFetch ?? NO_FETCH, media: deps.media });
  return {
    copy: deps.copy,
    images: deps.images,
    media: deps.media,

    async fetchProductImage(product) {
      // The copy stored at import first: it is the picture the product was imported with, and reading it
      // fetches nothing from the open web. Products from before copies were kept fall back to their URL.
      const stored = product.storedImages[0];
      if (stored) {
        const copy = await productImages.read(stored);
        if (copy) return copy;
      }
      const url = product.images[0];
      if (!url || !deps.safeFetch) return null;
      try {
        const response = await deps.safeFetch.fetch(url, {
          accept: ['image/png', 'image/jpeg'],
          maxBytes: 5 * 1024 * 1024,
          timeoutMs: 10_000,
          maxRedirects: 3,
        });
        if (response.status !== 200) return null;
        return sniffImage(response.body);
      } catch {
        // A product image that cannot be fetched is not a reason to fail the creative: compose without it.
        return null;
      }
    },

    composeVariantImage(request) {
      return composeVariant(request).png;
    },
  };
}

/** The studio as configured: built-in engines unless `CREATIVE_PROVIDER=openai`. */
export function createConfiguredStudio(config: Config, safeFetch: Pick<SafeFetch, 'fetch'> | null): CreativeStudio {
  const media = createMediaStore(config);
  if (config.creative.provider === 'openai') {
    const engines = createOpenAiEngines(config.creative);
    return createStudio({ ...engines, media, safeFetch });
  }
  return createStudio({ copy: createBuiltinCopyEngine(), images: null, media, safeFetch });
}
