/**
 * The price list: what every paid operation costs, in credits. One table, read by the quote service, the
 * workflows (which capture per completed step exactly what the quote listed) and `svc://capabilities`.
 *
 * Prices are per step so a job that fails or is cancelled half-way only keeps what it used: the workflow
 * captures each step's price when the step completes and releases the rest.
 */
import { findTemplate } from '../video/templates.ts';

export const GENERATION_STEPS = ['brief', 'copy', 'images', 'variants'] as const;
export type GenerationStep = (typeof GENERATION_STEPS)[number];

export const PRICES = {
  generation: {
    brief: 2,
    copy: 6,
    /** Per image (one per variant). */
    imagePerVariant: 4,
    variants: 0,
  },
  render: {
    still: 2,
    /** `mode: campaign`: a base plus one scene per variant. */
    campaignBase: 10,
    campaignPerVariant: 5,
    /** `mode: video` costs the template's own price (see `query_video templates`). */
  },
  film: {
    script: 10,
    storyboard: 10,
    render: 30,
    /** A revision re-runs the stage awaiting approval. */
    reviseStoryboard: 8,
    reviseRender: 20,
  },
} as const;

/** One line of a quote: a step of the job and what it costs. */
export interface PriceLine {
  step: string;
  credits: number;
  description: string;
}

export function generationLines(input: {
  fromStep: GenerationStep;
  includeImages: boolean;
  variantCount: number;
}): PriceLine[] {
  const from = GENERATION_STEPS.indexOf(input.fromStep);
  const lines: PriceLine[] = [];
  const wanted = (step: GenerationStep) => GENERATION_STEPS.indexOf(step) >= from;
  if (wanted('brief'))
    lines.push({
      step: 'brief',
      credits: PRICES.generation.brief,
      description: 'Campaign brief from the intent, products and brand',
    });
  if (wanted('copy'))
    lines.push({
      step: 'copy',
      credits: PRICES.generation.copy,
      description: `Copy for ${input.variantCount} variant(s) in the brand voice`,
    });
  if (wanted('images') && input.includeImages) {
    lines.push({
      step: 'images',
      credits: PRICES.generation.imagePerVariant * input.variantCount,
      description: `${input.variantCount} AI image(s), ${PRICES.generation.imagePerVariant} credits each`,
    });
  }
  lines.push({
    step: 'variants',
    credits: PRICES.generation.variants,
    description: 'Saving the variants to the campaign',
  });
  return lines;
}

export function renderLines(input: {
  mode: 'video' | 'campaign' | 'still';
  templateId?: string;
  variantCount?: number;
}): PriceLine[] {
  if (input.mode === 'still')
    return [{ step: 'render', credits: PRICES.render.still, description: 'One still image (PNG)' }];
  if (input.mode === 'campaign') {
    const n = input.variantCount ?? 1;
    return [
      {
        step: 'render',
        credits: PRICES.render.campaignBase + PRICES.render.campaignPerVariant * n,
        description: `Campaign video with ${n} variant scene(s)`,
      },
    ];
  }
  const template = input.templateId ? findTemplate(input.templateId) : undefined;
  return [
    {
      step: 'render',
      credits: template?.credits ?? 0,
      description: `Video from template ${template?.name ?? input.templateId ?? '?'}`,
    },
  ];
}

export function filmLines(stage: 'create' | 'revise_storyboard' | 'revise_render'): PriceLine[] {
  if (stage === 'revise_storyboard')
    return [
      {
        step: 'storyboard_revision',
        credits: PRICES.film.reviseStoryboard,
        description: 'Revised script and storyboard',
      },
    ];
  if (stage === 'revise_render')
    return [{ step: 'render_revision', credits: PRICES.film.reviseRender, description: 'Re-rendered film' }];
  return [
    { step: 'script', credits: PRICES.film.script, description: 'Script' },
    { step: 'storyboard', credits: PRICES.film.storyboard, description: 'Storyboard frames' },
    { step: 'render', credits: PRICES.film.render, description: 'Final film render' },
  ];
}

export const totalOf = (lines: readonly PriceLine[]) => lines.reduce((sum, line) => sum + line.credits, 0);

/** The price list as agents read it in `svc://capabilities` and as docs/agent-interface.md documents it. */
export function describePriceList() {
  return {
    unit: 'credits',
    generate_campaign: {
      brief: PRICES.generation.brief,
      copy: PRICES.generation.copy,
      imagesPerVariant: PRICES.generation.imagePerVariant,
      variants: PRICES.generation.variants,
      note: 'mode=regenerate charges only the steps from fromStep on; images only when includeImages is true',
    },
    render_video: {
      still: PRICES.render.still,
      campaign: `${PRICES.render.campaignBase} + ${PRICES.render.campaignPerVariant} per variant`,
      video: 'the template price (query_video templates)',
    },
    video_commission: {
      create: PRICES.film.script + PRICES.film.storyboard + PRICES.film.render,
      reviseStoryboard: PRICES.film.reviseStoryboard,
      reviseRender: PRICES.film.reviseRender,
      approve: 0,
      cancel: 'free; unused credits are released',
    },
    quotes:
      'Every paid call first returns a quote (no spend); repeat the same call with quoteId to proceed. Quotes are single-use, bound to the workspace and the arguments, and expire after 15 minutes.',
  };
}
