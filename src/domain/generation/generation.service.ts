/**
 * AI campaign generation: brief → copy → images → variants. Each step is a pure-ish function of the
 * campaign's context and the outputs of the steps before it, so the workflow can store every step's output
 * and a regeneration can re-run from any step with the earlier outputs reused.
 *
 * The creative work goes through the studio's engines (built-in and deterministic by default, an
 * OpenAI-compatible API by configuration); generated images go to the media store. Product text imported
 * from the web stays untrusted data: engines receive it fenced, and nothing here treats it as instructions.
 */
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { BrandService, BrandView } from '../brand/brand.service.ts';
import { assertCampaignTransition, type CampaignStatus } from '../campaigns/campaign-status.ts';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import type { CreativeStudio } from '../creative/studio.ts';
import type { CampaignBrief, CopyDraft } from '../creative/text/copy-engine.ts';
import { GENERATION_STEPS, type GenerationStep } from '../credits/price-list.ts';
import { JobStep } from '../jobs/job.entity.ts';
import { toProductView, type ProductView } from '../products/products.service.ts';
import { newId } from '../shared/ids.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { marketOf } from '../creative/text/market.ts';

export interface GenerationOptions {
  intent: string;
  includeImages: boolean;
  variantCount: number;
  channels: string[];
  /** Art direction for the images step (regeneration from `images`). */
  style?: string | null;
}

export interface GenerationContext extends GenerationOptions {
  workspaceId: string;
  campaignId: string;
  campaignName: string;
  objective: string | null;
  products: ProductView[];
  brand: BrandView;
}

export interface GeneratedImage {
  key: string;
  url: string;
  alt: string;
  prompt: string;
  width: number;
  height: number;
}

/** What each step stores (JobStep.output). */
export interface StepOutputs {
  brief: { brief: CampaignBrief };
  copy: { drafts: CopyDraft[] };
  images: { images: GeneratedImage[] };
  variants: { variantIds: string[] };
}

const IMAGE_SIZE = { width: 1200, height: 630 };

export function stepsFrom(fromStep: GenerationStep, includeImages: boolean): GenerationStep[] {
  return GENERATION_STEPS.slice(GENERATION_STEPS.indexOf(fromStep)).filter(
    (step) => includeImages || step !== 'images',
  );
}

export function createGenerationService(deps: { studio: CreativeStudio; brand: BrandService }) {
  const { studio } = deps;

  async function loadContext(
    scope: WorkspaceScope,
    campaignId: string,
    options: GenerationOptions,
  ): Promise<GenerationContext> {
    const campaign = await scope.em.findOne(Campaign, { id: campaignId, deletedAt: null }, { populate: ['products'] });
    if (!campaign) throw new NotFoundError('Campaign', campaignId);
    const products = campaign.products
      .getItems()
      .filter((p) => !p.deletedAt)
      .map(toProductView);
    const brand = await deps.brand.get(scope);
    return {
      ...options,
      workspaceId: scope.workspaceId,
      campaignId,
      campaignName: campaign.name,
      objective: campaign.objective ?? null,
      products,
      brand,
    };
  }

  async function writeBrief(ctx: GenerationContext, signal?: AbortSignal): Promise<StepOutputs['brief']> {
    const brief = await studio.copy.writeBrief(
      {
        intent: ctx.intent,
        campaignName: ctx.campaignName,
        objective: ctx.objective,
        channels: ctx.channels,
        products: ctx.products,
        brand: ctx.brand,
      },
      signal,
    );
    return { brief };
  }

  async function writeCopy(
    ctx: GenerationContext,
    brief: CampaignBrief,
    signal?: AbortSignal,
  ): Promise<StepOutputs['copy']> {
    const drafts = await studio.copy.writeCopy(
      {
        brief,
        products: ctx.products,
        brand: ctx.brand,
        channels: ctx.channels,
        variantCount: ctx.variantCount,
        intent: ctx.intent,
      },
      signal,
    );
    if (drafts.length === 0) throw new ValidationError('The copy step produced no variants');
    return { drafts };
  }

  async function makeImages(
    ctx: GenerationContext,
    input: {
      jobId: string;
      brief: CampaignBrief;
      drafts: CopyDraft[];
      onImage?: (done: number, total: number) => void;
    },
    signal?: AbortSignal,
  ): Promise<StepOutputs['images']> {
    const images: GeneratedImage[] = [];
    const product = ctx.products[0] ?? null;
    const productImage = product ? await studio.fetchProductImage(product) : null;
    for (const [index, draft] of input.drafts.entries()) {
      signal?.throwIfAborted();
      const direction = await studio.copy.describeImage(
        { brief: input.brief, draft, brand: ctx.brand, product, style: ctx.style ?? undefined },
        signal,
      );
      const png = studio.images
        ? (await studio.images.generate({ prompt: direction.prompt, ...IMAGE_SIZE }, signal)).png
        : studio.composeVariantImage({
            ...IMAGE_SIZE,
            draft,
            brand: ctx.brand,
            product,
            productImage,
            market: marketOf(input.brief),
            seed: `${ctx.campaignId}:${index}:${draft.headline}`,
          });
      const key = `${ctx.workspaceId}/campaigns/${ctx.campaignId}/${input.jobId}/variant-${index + 1}.png`;
      await studio.media.put(key, png, 'image/png');
      images.push({ key, url: studio.media.urlFor(key), alt: direction.alt, prompt: direction.prompt, ...IMAGE_SIZE });
      input.onImage?.(index + 1, input.drafts.length);
    }
    return { images };
  }

  /**
   * Writes the generated variants, exactly once per job: the step row is inserted first in the same
   * transaction, so a retried activity finds it and returns the variants it already made. Earlier generated
   * variants of the campaign are retired (soft-deleted); variants people wrote by hand stay.
   */
  async function saveVariants(
    scope: WorkspaceScope,
    input: {
      campaignId: string;
      jobId: string;
      attempt: number;
      drafts: CopyDraft[];
      images: GeneratedImage[] | null;
    },
  ): Promise<StepOutputs['variants']> {
    return scope.em.fork().transactional(async (tx) => {
      const inserted = await tx
        .createQueryBuilder(JobStep)
        .insert({
          id: newId('jobStep'),
          job: input.jobId,
          name: 'variants',
          attempt: input.attempt,
          output: null,
          completedAt: new Date(),
        })
        .onConflict(['job', 'name'])
        .ignore()
        .execute('run');
      if (inserted.affectedRows === 0) {
        const existing = await tx.findOneOrFail(JobStep, { job: input.jobId, name: 'variants' });
        return existing.output as StepOutputs['variants'];
      }
      const campaign = await tx.findOneOrFail(Campaign, { id: input.campaignId });
      await tx.nativeUpdate(
        Variant,
        { campaign: campaign.id, source: 'generated', deletedAt: null },
        { deletedAt: new Date(), isControl: false },
      );
      const remaining = await tx.count(Variant, { campaign: campaign.id, deletedAt: null });
      const hasControl = (await tx.count(Variant, { campaign: campaign.id, deletedAt: null, isControl: true })) > 0;
      const slots = Math.max(0, 10 - remaining);
      const variants = input.drafts.slice(0, slots).map((draft, index) => {
        const image = input.images?.[index];
        return tx.create(Variant, {
          ...ownedBy(scope),
          campaign,
          name: draft.name,
          headline: draft.headline,
          body: draft.body,
          callToAction: draft.callToAction,
          ctaUrl: null,
          imageRefs: image ? [{ url: image.url, alt: image.alt, mediaId: image.key }] : [],
          channelFields: draft.channelFields,
          status: 'active',
          weight: 50,
          isControl: !hasControl && index === 0,
          source: 'generated',
          version: 1,
          deletedAt: null,
        });
      });
      const output = { variantIds: variants.map((v) => v.id) };
      await tx.flush();
      await tx.nativeUpdate(JobStep, { job: input.jobId, name: 'variants' }, { output });
      return output;
    });
  }

  return {
    loadContext,
    writeBrief,
    writeCopy,
    makeImages,
    saveVariants,

    /**
     * Moves a campaign into `generating` (remembering where it was) before a generation starts; refuses when
     * the campaign cannot be generated now.
     */
    async beginGeneration(scope: WorkspaceScope, campaignId: string): Promise<void> {
      const campaign = await scope.em.findOne(Campaign, { id: campaignId, deletedAt: null });
      if (!campaign) throw new NotFoundError('Campaign', campaignId);
      if (campaign.status === 'generating')
        throw new ConflictError('The campaign is already generating; poll query_campaigns generation_status');
      assertCampaignTransition(campaign.status, 'generating', 'generate it');
      campaign.statusBeforeGeneration = campaign.status;
      campaign.status = 'generating';
      await scope.em.flush();
    },

    /**
     * Ends a generation: a success leaves a draft `ready` (a published campaign stays published); a failure or
     * cancellation returns the campaign to where it was. Idempotent. Returns whether the campaign is live
     * (so the caller republishes).
     */
    async endGeneration(
      scope: WorkspaceScope,
      input: {
        campaignId: string;
        outcome: 'succeeded' | 'failed' | 'cancelled';
        brief?: CampaignBrief | null;
      },
    ): Promise<{ published: boolean }> {
      const tx = scope.em.fork();
      const campaign = await tx.findOne(Campaign, { id: input.campaignId });
      if (!campaign) return { published: false };
      if (campaign.status === 'generating') {
        const before: CampaignStatus = campaign.statusBeforeGeneration ?? 'draft';
        const variants = await tx.count(Variant, { campaign: campaign.id, deletedAt: null });
        campaign.status = before === 'published' || before === 'archived' ? before : variants > 0 ? 'ready' : 'draft';
        campaign.statusBeforeGeneration = null;
      }
      if (input.outcome === 'succeeded' && input.brief)
        campaign.brief = input.brief as unknown as Record<string, unknown>;
      await tx.flush();
      return { published: campaign.status === 'published' };
    },
  };
}

export type GenerationService = ReturnType<typeof createGenerationService>;
