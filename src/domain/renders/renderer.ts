/**
 * The worker side of renders: turns a render request into real media. Stills are one PNG composition; videos
 * are keyframes (one composition per scene, filled from the variant, its product and the brand) encoded by
 * ffmpeg with motion and fades. Films reuse the same path from their script's scenes.
 *
 * Output keys are derived from the job id, so a retried render overwrites its own half-written output and
 * never leaves a second file behind.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../../errors.ts';
import type { BrandService, BrandView } from '../brand/brand.service.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import type { CreativeStudio } from '../creative/studio.ts';
import type { EmbeddedImage } from '../creative/images/compose.ts';
import { encodeVideo, type Keyframe } from '../creative/video/ffmpeg.ts';
import { formatProductPrice, marketOf, type Market } from '../creative/text/market.ts';
import { toProductView, type ProductView } from '../products/products.service.ts';
import { findTemplate, type VideoTemplate } from '../video/templates.ts';
import { STILL_SIZES, type RenderOutput, type RenderRequest } from './render.types.ts';

export const FILM_SIZES: Record<string, { width: number; height: number }> = {
  '16:9': { width: 1280, height: 720 },
  '9:16': { width: 720, height: 1280 },
  '1:1': { width: 720, height: 720 },
};

interface SceneText {
  headline: string;
  body: string;
  callToAction: string;
}

export interface RenderProgress {
  (fraction: number, message: string): void;
}

/**
 * One scene of a template, filled from the variant. Each scene says something the others do not: the
 * benefit scene the body's first sentence, the offer scene the price as the campaign's market writes it
 * ("289,00 €", no English "Now" before it) over a later sentence that does not repeat the price.
 */
export function templateScene(
  kind: VideoTemplate['scenes'][number]['kind'],
  text: SceneText,
  brand: BrandView,
  product: ProductView | null,
  market: Market | null,
): SceneText & { headlineOnly: boolean } {
  const price = formatProductPrice(product, market);
  const sentences = text.body.split(/(?<=[.!?])\s+/).filter(Boolean);
  switch (kind) {
    case 'title':
      return { ...text, headlineOnly: true };
    case 'product':
      return {
        headline: product?.title ?? text.headline,
        body: text.body,
        callToAction: text.callToAction,
        headlineOnly: true,
      };
    case 'benefit':
      return {
        headline: sentences[0] ?? text.body,
        body: '',
        callToAction: text.callToAction,
        headlineOnly: true,
      };
    case 'offer':
      return {
        headline: price ?? text.headline,
        body:
          sentences
            .slice(1)
            .find((sentence) => !price || !sentence.replace(/\s/g, ' ').includes(price.replace(/\s/g, ' '))) ?? '',
        callToAction: text.callToAction,
        headlineOnly: true,
      };
    case 'call_to_action':
      return {
        headline: text.callToAction,
        body: brand.profile.displayName,
        callToAction: text.callToAction,
        headlineOnly: false,
      };
  }
}

export function createRenderer(deps: { studio: CreativeStudio; brand: BrandService }) {
  const { studio } = deps;

  async function variantsOf(scope: WorkspaceScope, campaignId: string, variantId: string | null) {
    const { em } = scope;
    const campaign = await em.findOne(Campaign, { id: campaignId, deletedAt: null }, { populate: ['products'] });
    if (!campaign) throw new ValidationError(`Campaign ${campaignId} no longer exists`);
    const variants = await em.find(
      Variant,
      {
        campaign: campaignId,
        deletedAt: null,
        ...(variantId ? { id: variantId } : { status: 'active' }),
      },
      { orderBy: { isControl: 'desc', createdAt: 'asc', id: 'asc' } },
    );
    if (variants.length === 0)
      throw new ValidationError(
        variantId ? `Variant ${variantId} no longer exists` : 'The campaign has no active variants to render',
      );
    const product = campaign.products.getItems().find((p) => !p.deletedAt);
    return { campaign, variants, product: product ? toProductView(product) : null };
  }

  async function store(
    key: string,
    bytes: Buffer,
    mimeType: RenderOutput['mimeType'],
    size: { width: number; height: number },
    durationSeconds: number | null,
  ): Promise<RenderOutput> {
    await studio.media.put(key, bytes, mimeType);
    return {
      key,
      url: studio.media.urlFor(key),
      mimeType,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      width: size.width,
      height: size.height,
      durationSeconds,
    };
  }

  async function frames(
    scenes: { text: SceneText & { headlineOnly?: boolean }; seconds: number; seed: string }[],
    size: { width: number; height: number },
    brand: BrandView,
    product: ProductView | null,
    productImage: EmbeddedImage | null,
    market: Market | null,
  ): Promise<Keyframe[]> {
    return scenes.map((scene) => ({
      seconds: scene.seconds,
      png: studio.composeVariantImage({
        ...size,
        draft: scene.text,
        brand,
        product,
        productImage,
        market,
        seed: scene.seed,
        headlineOnly: scene.text.headlineOnly,
      }),
    }));
  }

  return {
    /** Renders what `request` asks for and stores it; `onProgress` receives ffmpeg's progress. */
    async render(
      scope: WorkspaceScope,
      input: {
        jobId: string;
        request: RenderRequest;
        onProgress?: RenderProgress;
        signal?: AbortSignal;
      },
    ): Promise<RenderOutput> {
      const { jobId, request } = input;
      const brand = await deps.brand.get(scope);
      const base = `${scope.workspaceId}/renders/${jobId}`;

      if (request.mode === 'still') {
        const { variants, product, campaign } = await variantsOf(scope, request.campaignId, request.variantId);
        const size = STILL_SIZES[request.format];
        const productImage = product ? await studio.fetchProductImage(product) : null;
        const png = studio.composeVariantImage({
          ...size,
          draft: variants[0]!,
          brand,
          product,
          productImage,
          market: marketOf(campaign.brief),
          seed: `${request.variantId}:${request.format}`,
        });
        input.onProgress?.(1, 'still rendered');
        return store(`${base}/still-${request.format}.png`, png, 'image/png', size, null);
      }

      let keyframes: Keyframe[];
      let size: { width: number; height: number };
      if (request.mode === 'campaign') {
        const { variants, product, campaign } = await variantsOf(scope, request.campaignId, null);
        size = FILM_SIZES['16:9']!;
        const productImage = product ? await studio.fetchProductImage(product) : null;
        keyframes = await frames(
          variants.map((variant) => ({ text: variant, seconds: 3, seed: variant.id })),
          size,
          brand,
          product,
          productImage,
          marketOf(campaign.brief),
        );
      } else {
        const template = findTemplate(request.templateId);
        if (!template) throw new ValidationError(`Unknown template ${request.templateId}`);
        size = { width: template.width, height: template.height };
        let text: SceneText = {
          headline: brand.profile.tagline ?? brand.profile.displayName,
          body: brand.profile.description ?? '',
          callToAction: 'Learn more',
        };
        let product: ProductView | null = null;
        let market: Market | null = null;
        if (request.campaignId) {
          const found = await variantsOf(scope, request.campaignId, request.variantId);
          text = found.variants[0]!;
          product = found.product;
          market = marketOf(found.campaign.brief);
        }
        const productImage = product ? await studio.fetchProductImage(product) : null;
        keyframes = await frames(
          template.scenes.map((scene, index) => ({
            text: templateScene(scene.kind, text, brand, product, market),
            seconds: scene.seconds,
            seed: `${template.id}:${index}`,
          })),
          size,
          brand,
          product,
          productImage,
          market,
        );
      }
      input.onProgress?.(0.05, 'frames composed; encoding');
      const video = await encodeVideo({
        keyframes,
        ...size,
        signal: input.signal,
        onProgress: (fraction) => input.onProgress?.(0.05 + fraction * 0.9, `encoding ${Math.round(fraction * 100)}%`),
      });
      return store(`${base}/${request.mode}.mp4`, video.mp4, 'video/mp4', size, video.durationSeconds);
    },

    /** Keyframes of a film's storyboard or final cut: one composition per scene of its script. */
    async filmFrames(
      scope: WorkspaceScope,
      input: {
        aspect: string;
        scenes: { onScreenText: string; voiceover: string; seconds: number; visual: string }[];
        seed: string;
      },
    ): Promise<{ keyframes: Keyframe[]; size: { width: number; height: number } }> {
      const brand = await deps.brand.get(scope);
      const size = FILM_SIZES[input.aspect] ?? FILM_SIZES['16:9']!;
      const keyframes = await frames(
        input.scenes.map((scene, index) => ({
          text: { headline: scene.onScreenText, body: scene.voiceover, callToAction: brand.profile.displayName },
          seconds: scene.seconds,
          seed: `${input.seed}:${index}`,
        })),
        size,
        brand,
        null,
        null,
        null,
      );
      return { keyframes, size };
    },

    store,
  };
}

export type Renderer = ReturnType<typeof createRenderer>;
