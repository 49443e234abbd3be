/**
 * Validation of beacon batches sent by brand-site pages. The host decides the workspace; the publication
 * decides which campaign, variant, zone and surface ids are real; the UUIDv7 event id decides the time.
 * Events that fail are reported back one by one (and dropped), the rest are recorded.
 */
import { z } from 'zod';
import type { PublishedSite } from '../../public/brand-site/site-model.ts';
import { eventTimeOf } from './event-ids.ts';
import { AppError } from '../../errors.ts';
import { CampaignId, GoalKey, SurfaceId, VariantId, ZoneId } from '../shared/schemas.ts';
import type { SiteEvent } from './site-events.ts';

const BeaconEvent = z.strictObject({
  type: z.enum(['impression', 'click', 'conversion']),
  eventId: z.string().max(36),
  campaignId: CampaignId.optional(),
  variantId: VariantId.optional(),
  zoneId: ZoneId.optional(),
  surfaceId: SurfaceId.optional(),
  goal: GoalKey.optional(),
  value: z.number().finite().min(0).max(1_000_000_000).optional(),
});
type BeaconEvent = z.infer<typeof BeaconEvent>;

export const MAX_BEACON_EVENTS = 50;
const Beacon = z.strictObject({ events: z.array(z.unknown()).min(1).max(MAX_BEACON_EVENTS) });

/** How far back a beacon may date its events (a page left open), and how far ahead (clock skew). */
const MAX_AGE_MS = 24 * 3600 * 1000;
const MAX_SKEW_MS = 5 * 60 * 1000;

export interface PublishedIds {
  variantsByCampaign: Map<string, Set<string>>;
  zones: Map<string, string>;
}

/** The ids a beacon may name, read once per publication. */
export function publishedIds(site: PublishedSite): PublishedIds {
  const variantsByCampaign = new Map<string, Set<string>>();
  for (const campaign of site.snapshot.campaigns) {
    variantsByCampaign.set(campaign.id, new Set(campaign.variants.map((variant) => variant.id)));
  }
  const zones = new Map<string, string>();
  for (const surface of site.snapshot.surfaces) for (const zone of surface.zones) zones.set(zone.id, surface.id);
  return { variantsByCampaign, zones };
}

export interface BeaconResult {
  events: SiteEvent[];
  rejected: { index: number; reason: string }[];
}

/** A body that is not a beacon: the HTTP edge answers 400 `invalid_beacon` with the message. */
export class BeaconFormatError extends AppError {
  constructor(message: string) {
    super('invalid_beacon', message);
  }
}

function checkEvent(event: BeaconEvent, ids: PublishedIds, now: number): string | null {
  const at = eventTimeOf(event.eventId);
  if (!at) return 'eventId must be a UUIDv7';
  if (at.getTime() < now - MAX_AGE_MS || at.getTime() > now + MAX_SKEW_MS) return 'eventId time is out of range';
  if (event.type === 'conversion') {
    if (!event.goal) return 'a conversion needs a goal';
  } else if (!event.campaignId || !event.variantId) {
    return `a${event.type === 'impression' ? 'n' : ''} ${event.type} needs campaignId and variantId`;
  }
  if (event.campaignId) {
    const variants = ids.variantsByCampaign.get(event.campaignId);
    if (!variants) return 'campaignId is not published on this site';
    if (event.variantId && !variants.has(event.variantId))
      return 'variantId is not a published variant of the campaign';
  } else if (event.variantId) {
    return 'variantId needs campaignId';
  }
  if (event.zoneId) {
    const surfaceId = ids.zones.get(event.zoneId);
    if (!surfaceId) return 'zoneId is not a zone of this site';
    if (event.surfaceId && event.surfaceId !== surfaceId) return 'zoneId is not on that surface';
  }
  return null;
}

/** Parses a beacon body (JSON text) into events for `site`; throws BeaconFormatError when it is not a beacon. */
export function readBeacon(
  text: string,
  context: { site: PublishedSite; ids: PublishedIds; sessionId: string | null; now?: number },
): BeaconResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BeaconFormatError('body must be JSON: {"events": [...]}');
  }
  const envelope = Beacon.safeParse(json);
  if (!envelope.success) {
    throw new BeaconFormatError(`body must be {"events": [1–${MAX_BEACON_EVENTS} events]}`);
  }
  const now = context.now ?? Date.now();
  const result: BeaconResult = { events: [], rejected: [] };
  envelope.data.events.forEach((raw, index) => {
    const parsed = BeaconEvent.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      result.rejected.push({ index, reason: `${issue?.path.join('.') || 'event'}: ${issue?.message ?? 'invalid'}` });
      return;
    }
    const event = parsed.data;
    const problem = checkEvent(event, context.ids, now);
    if (problem) {
      result.rejected.push({ index, reason: problem });
      return;
    }
    result.events.push({
      eventId: event.eventId,
      workspaceId: context.site.workspaceId,
      type: event.type,
      occurredAt: eventTimeOf(event.eventId)!,
      sessionId: context.sessionId,
      campaignId: event.campaignId ?? null,
      variantId: event.variantId ?? null,
      zoneId: event.zoneId ?? null,
      // A surface is recorded only through one of its zones, which the publication vouches for.
      surfaceId: event.zoneId ? (context.ids.zones.get(event.zoneId) ?? null) : null,
      goal: event.goal ?? null,
      value: event.value ?? null,
      properties: { source: 'beacon' },
    });
  });
  return result;
}
