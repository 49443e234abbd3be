/**
 * The catalogue of video templates (listing is free). Each template is a sequence of scenes the built-in
 * renderer fills from a campaign's variant, product and brand: text, images, colours and motion.
 */
import { ValidationError } from '../../errors.ts';
import { DEFAULT_PAGE_SIZE, type Page } from '../shared/pagination.ts';

export interface VideoTemplate {
  id: string;
  name: string;
  description: string;
  aspect: '16:9' | '9:16' | '1:1';
  width: number;
  height: number;
  durationSeconds: number;
  scenes: { kind: 'title' | 'product' | 'benefit' | 'offer' | 'call_to_action'; seconds: number }[];
  /** Credits a render of this template costs. */
  credits: number;
  suitedFor: string[];
}

export const VIDEO_TEMPLATES: readonly VideoTemplate[] = [
  {
    id: 'tpl_product_spotlight',
    name: 'Product spotlight',
    description: 'Headline, product image with a slow zoom, price and call to action. A clean default for any product.',
    aspect: '16:9',
    width: 1280,
    height: 720,
    durationSeconds: 8,
    scenes: [
      { kind: 'title', seconds: 2 },
      { kind: 'product', seconds: 3 },
      { kind: 'call_to_action', seconds: 3 },
    ],
    credits: 20,
    suitedFor: ['web', 'youtube'],
  },
  {
    id: 'tpl_story_vertical',
    name: 'Vertical story',
    description: 'Full-screen vertical story for social feeds: hook, product, benefit, offer, call to action.',
    aspect: '9:16',
    width: 720,
    height: 1280,
    durationSeconds: 10,
    scenes: [
      { kind: 'title', seconds: 2 },
      { kind: 'product', seconds: 2 },
      { kind: 'benefit', seconds: 2 },
      { kind: 'offer', seconds: 2 },
      { kind: 'call_to_action', seconds: 2 },
    ],
    credits: 25,
    suitedFor: ['instagram', 'tiktok', 'stories'],
  },
  {
    id: 'tpl_square_offer',
    name: 'Square offer',
    description: 'Square loop built around the offer: headline, price badge, call to action. For feeds and email.',
    aspect: '1:1',
    width: 1080,
    height: 1080,
    durationSeconds: 6,
    scenes: [
      { kind: 'title', seconds: 2 },
      { kind: 'offer', seconds: 2 },
      { kind: 'call_to_action', seconds: 2 },
    ],
    credits: 15,
    suitedFor: ['instagram', 'facebook', 'email'],
  },
  {
    id: 'tpl_launch_teaser',
    name: 'Launch teaser',
    description: 'A short widescreen teaser for launches: bold title, benefit, product reveal, call to action.',
    aspect: '16:9',
    width: 1280,
    height: 720,
    durationSeconds: 12,
    scenes: [
      { kind: 'title', seconds: 3 },
      { kind: 'benefit', seconds: 3 },
      { kind: 'product', seconds: 3 },
      { kind: 'call_to_action', seconds: 3 },
    ],
    credits: 30,
    suitedFor: ['web', 'youtube', 'landing pages'],
  },
];

export function findTemplate(id: string): VideoTemplate | undefined {
  return VIDEO_TEMPLATES.find((template) => template.id === id);
}

/** Lists templates in catalogue order; the cursor is the index to continue from. */
export function listTemplates(input: { aspect?: string; cursor?: string; limit?: number }): Page<VideoTemplate> {
  const all = VIDEO_TEMPLATES.filter((t) => !input.aspect || t.aspect === input.aspect);
  let start = 0;
  if (input.cursor !== undefined) {
    const decoded = Number(Buffer.from(input.cursor, 'base64url').toString('utf8').replace(/^tpl:/, ''));
    if (!Number.isInteger(decoded) || decoded < 0 || decoded > all.length) {
      throw new ValidationError('Invalid cursor: pass nextCursor from the previous page unchanged', {
        issues: [{ field: 'cursor', message: 'is not a cursor this server issued' }],
      });
    }
    start = decoded;
  }
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const items = all.slice(start, start + limit);
  const next = start + items.length;
  return { items, nextCursor: next < all.length ? Buffer.from(`tpl:${next}`).toString('base64url') : null };
}
