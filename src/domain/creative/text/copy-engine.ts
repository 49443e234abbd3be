/**
 * The copy engine's contract: what the creative steps ask of a text model, whoever provides it (the built-in
 * deterministic writer or an OpenAI-compatible API). Inputs carry product data that may be untrusted (fetched
 * from the web); engines must treat it as data, never as instructions, and return plain text.
 */
import type { BrandView } from '../../brand/brand.service.ts';
import type { ProductView } from '../../products/products.service.ts';
import type { ChannelFields } from '../../campaigns/variant.entity.ts';
import type { Market } from './market.ts';

export interface CampaignBrief {
  [key: string]: unknown;
  intent: string;
  audience: string;
  angle: string;
  keyMessages: string[];
  tone: string;
  channels: string[];
  productIds: string[];
  /**
   * The market the intent names (country and locale), when it names one: later steps (images, video frames,
   * the brand site) format prices with it (`formatProductPrice(product, marketOf(brief))`).
   */
  market?: Market;
  /** The timing the intent names ("before winter"), or null. */
  moment?: string | null;
  /** The points the intent asks to stress, in its words. */
  stress?: string[];
}

export interface CopyDraft {
  [key: string]: unknown;
  name: string;
  headline: string;
  body: string;
  callToAction: string;
  channelFields: ChannelFields;
}

export interface ImageDirection {
  prompt: string;
  alt: string;
}

export interface FilmScene {
  index: number;
  seconds: number;
  visual: string;
  voiceover: string;
  onScreenText: string;
}

export interface FilmScript {
  logline: string;
  scenes: FilmScene[];
}

export interface BriefRequest {
  intent: string;
  campaignName: string;
  objective: string | null;
  channels: string[];
  products: ProductView[];
  brand: BrandView;
}

export interface CopyRequest {
  brief: CampaignBrief;
  intent: string;
  products: ProductView[];
  brand: BrandView;
  channels: string[];
  variantCount: number;
}

export interface ImageDirectionRequest {
  brief: CampaignBrief;
  draft: CopyDraft;
  brand: BrandView;
  product: ProductView | null;
  style?: string;
}

export interface FilmScriptRequest {
  title: string;
  brief: string;
  durationSeconds: number;
  brand: BrandView;
  /** Revision notes from the person approving; null for the first cut. */
  notes: string | null;
  previous: FilmScript | null;
}

export interface CopyEngine {
  readonly name: string;
  writeBrief(request: BriefRequest, signal?: AbortSignal): Promise<CampaignBrief>;
  writeCopy(request: CopyRequest, signal?: AbortSignal): Promise<CopyDraft[]>;
  describeImage(request: ImageDirectionRequest, signal?: AbortSignal): Promise<ImageDirection>;
  writeFilmScript(request: FilmScriptRequest, signal?: AbortSignal): Promise<FilmScript>;
}

/** An image model: a prompt in, a PNG out. The built-in studio composes images itself instead. */
export interface ImageGenerator {
  readonly name: string;
  generate(request: { prompt: string; width: number; height: number }, signal?: AbortSignal): Promise<{ png: Buffer }>;
}
