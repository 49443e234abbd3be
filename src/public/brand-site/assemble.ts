/**
 * Serve-time assembly of a stored page for one visitor: each slot gets the visitor's sticky variant.
 *
 * The choice is a deterministic hash of (session, campaign) over the variants' weights, so the same visitor
 * sees the same variant on every page and every visit, without storing assignments; a weight change moves
 * only the share of visitors it must. In HTML the fragment is wrapped in the element the beacon script reads
 * (`data-cp-campaign`, `data-cp-variant`, zone and surface), which is how every rendered variant reports
 * its impression.
 */
import { hash } from 'node:crypto';
import { escapeHtml } from '../../views/html.ts';
import type { RenderedPage, SlotFill } from './site-model.ts';

export interface SlotChoice {
  campaignId: string;
  variantId: string;
  zoneId: string | null;
  surfaceId: string | null;
}

/** The visitor's variant among `fill.variants`, or null when the campaign has none to show. */
export function chooseVariant(sessionId: string, campaignId: string, fill: SlotFill): string | null {
  const candidates = fill.variants.filter((variant) => fill.byVariant[variant.id]);
  if (candidates.length === 0) return null;
  const weighted = candidates.filter((variant) => variant.weight > 0);
  const pool = weighted.length > 0 ? weighted : candidates.map((variant) => ({ ...variant, weight: 1 }));
  const total = pool.reduce((sum, variant) => sum + variant.weight, 0);
  // One-shot `hash`: the same digest as a Hash object, at under half the cost (this runs per slot per page).
  const digest = hash('sha256', `${sessionId}\u0000${campaignId}`, 'buffer');
  // 48 bits of the hash as a fraction in [0, 1): plenty of resolution for any weights.
  const point = (digest.readUIntBE(0, 6) / 2 ** 48) * total;
  let cumulative = 0;
  for (const variant of pool) {
    cumulative += variant.weight;
    if (point < cumulative) return variant.id;
  }
  return pool[pool.length - 1]!.id;
}

/** One variant per campaign with a slot on the page (a campaign in several zones shows the same one). */
function chooseForPage(page: RenderedPage, sessionId: string): Map<string, string | null> {
  const chosen = new Map<string, string | null>();
  for (const part of page.html) {
    if (typeof part === 'string' || chosen.has(part.campaignId)) continue;
    const fill = page.fills[part.campaignId];
    chosen.set(part.campaignId, fill ? chooseVariant(sessionId, part.campaignId, fill) : null);
  }
  return chosen;
}

function splice(
  page: RenderedPage,
  format: 'html' | 'markdown',
  chosen: Map<string, string | null>,
): { body: string; choices: SlotChoice[] } {
  const parts = format === 'html' ? page.html : page.markdown;
  const choices: SlotChoice[] = [];
  let body = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      body += part;
      continue;
    }
    const variantId = chosen.get(part.campaignId) ?? null;
    const fragment = variantId ? page.fills[part.campaignId]?.byVariant[variantId] : undefined;
    if (!variantId || !fragment) continue;
    choices.push({ campaignId: part.campaignId, variantId, zoneId: part.zoneId, surfaceId: part.surfaceId });
    if (format === 'markdown') {
      body += fragment.markdown;
      continue;
    }
    const attributes = [
      `data-cp-campaign="${escapeHtml(part.campaignId)}"`,
      `data-cp-variant="${escapeHtml(variantId)}"`,
      part.zoneId ? `data-cp-zone="${escapeHtml(part.zoneId)}"` : '',
      part.surfaceId ? `data-cp-surface="${escapeHtml(part.surfaceId)}"` : '',
    ].filter(Boolean);
    body += `<div class="cp-slot" ${attributes.join(' ')}>${fragment.html}</div>`;
  }
  return { body, choices };
}

/**
 * Assembled pages are memoised per stored page object and variant combination: a page has few combinations
 * (the product of its campaigns' variant counts, bounded below), and the stored page objects live in the
 * site reader's cache, so serving a page is a hash per campaign and a map lookup.
 */
const assembled = new WeakMap<RenderedPage, Map<string, { body: string; choices: SlotChoice[] }>>();
const MAX_COMBINATIONS_PER_PAGE = 256;

export function assemblePage(
  page: RenderedPage,
  format: 'html' | 'markdown',
  sessionId: string,
): { body: string; choices: SlotChoice[] } {
  const chosen = chooseForPage(page, sessionId);
  const key = `${format}|${[...chosen.values()].join(',')}`;
  let memo = assembled.get(page);
  if (!memo) {
    memo = new Map();
    assembled.set(page, memo);
  }
  const hit = memo.get(key);
  if (hit) return hit;
  const result = splice(page, format, chosen);
  if (memo.size < MAX_COMBINATIONS_PER_PAGE) memo.set(key, result);
  return result;
}

/** True when the page has slots, i.e. its bytes depend on the visitor. */
export function hasSlots(page: RenderedPage): boolean {
  return page.html.some((part) => typeof part !== 'string');
}
