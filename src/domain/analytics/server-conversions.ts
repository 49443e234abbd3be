/**
 * Conversions reported by a workspace's own servers (a checkout, a sign-up backend), for goals a browser
 * beacon cannot see. The caller passes the visitor's anonymous session id (the `cp_vid` that the brand site's
 * call-to-action hand-off appended to the link the visitor followed, see hand-off.ts) so the conversion joins
 * the session's exposures; the rollup attributes it like a beacon conversion. `eventId` is the caller's
 * idempotency key: a retried request (same eventId, same occurredAt — or a UUIDv7 id and no occurredAt) never
 * counts twice.
 */
import { z } from 'zod';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import { ValidationError } from '../../errors.ts';
import { CampaignId, GoalKey, IsoDateTime, VariantId } from '../shared/schemas.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { eventTimeOf } from './event-ids.ts';
import { VISITOR_ID, type SiteEvent } from './site-events.ts';

export const MAX_SERVER_CONVERSIONS = 100;
/** How far back a server may date a conversion (an order confirmed later), and how far ahead (clock skew). */
const MAX_AGE_MS = 7 * 86_400_000;
const MAX_SKEW_MS = 5 * 60_000;

const Conversion = z.strictObject({
  eventId: z.uuid('must be a UUID (your idempotency key for this conversion)'),
  sessionId: z
    .string()
    .regex(VISITOR_ID, "must be the visitor's cp_vid (22 characters, as the call-to-action hand-off passed it)"),
  goal: GoalKey,
  value: z.number().finite().min(0).max(1_000_000_000).optional(),
  campaignId: CampaignId.optional(),
  variantId: VariantId.optional(),
  occurredAt: IsoDateTime.optional(),
});

const Body = z.strictObject({
  conversions: z.array(z.unknown()).min(1).max(MAX_SERVER_CONVERSIONS),
});

export interface ServerConversionResult {
  events: SiteEvent[];
  rejected: { index: number; reason: string }[];
}

/**
 * Validates a request body into conversion events for the scope's workspace. A body that is not
 * `{conversions: [1–100]}` throws ValidationError (nothing is recorded); single conversions that fail are
 * reported by index and the rest are recorded.
 */
export async function readServerConversions(
  scope: WorkspaceScope,
  body: unknown,
  now = Date.now(),
): Promise<ServerConversionResult> {
  const envelope = Body.safeParse(body);
  if (!envelope.success) {
    throw new ValidationError(`Body must be {"conversions": [1–${MAX_SERVER_CONVERSIONS} conversions]}`, {
      issues: [{ field: 'conversions', message: envelope.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  const parsed = envelope.data.conversions.map((raw) => Conversion.safeParse(raw));
  const named = parsed.flatMap((result) => (result.success ? [result.data] : []));
  const campaignIds = [...new Set(named.flatMap((c) => (c.campaignId ? [c.campaignId] : [])))];
  const variantIds = [...new Set(named.flatMap((c) => (c.variantId ? [c.variantId] : [])))];
  // Ids of another workspace look exactly like ids that do not exist.
  const [campaigns, variants] = await Promise.all([
    campaignIds.length ? scope.em.find(Campaign, { id: { $in: campaignIds }, deletedAt: null }) : [],
    variantIds.length ? scope.em.find(Variant, { id: { $in: variantIds } }) : [],
  ]);
  const knownCampaigns = new Set(campaigns.map((campaign) => campaign.id));
  const campaignOfVariant = new Map(variants.map((variant) => [variant.id, variant.campaign.id]));

  const result: ServerConversionResult = { events: [], rejected: [] };
  parsed.forEach((outcome, index) => {
    if (!outcome.success) {
      const issue = outcome.error.issues[0];
      result.rejected.push({ index, reason: `${issue?.path.join('.') || 'conversion'}: ${issue?.message}` });
      return;
    }
    const conversion = outcome.data;
    // Deduplication is by (eventId, time), so a retry must land on the same time: the caller's occurredAt,
    // or the time inside a UUIDv7 id. "Now" would differ on every retry and count it again.
    const at = conversion.occurredAt ? new Date(conversion.occurredAt) : eventTimeOf(conversion.eventId);
    const problem = !at
      ? 'occurredAt: required unless eventId is a UUIDv7 (whose time is then the event time)'
      : at.getTime() < now - MAX_AGE_MS
        ? 'occurredAt: more than 7 days ago'
        : at.getTime() > now + MAX_SKEW_MS
          ? 'occurredAt: in the future'
          : conversion.campaignId && !knownCampaigns.has(conversion.campaignId)
            ? `campaignId: campaign ${conversion.campaignId} was not found`
            : conversion.variantId && !conversion.campaignId
              ? 'variantId: needs campaignId'
              : conversion.variantId && campaignOfVariant.get(conversion.variantId) !== conversion.campaignId
                ? `variantId: variant ${conversion.variantId} is not a variant of ${conversion.campaignId}`
                : null;
    if (problem || !at) {
      result.rejected.push({ index, reason: problem ?? 'occurredAt: required' });
      return;
    }
    result.events.push({
      eventId: conversion.eventId,
      workspaceId: scope.workspaceId,
      type: 'conversion',
      occurredAt: at,
      sessionId: conversion.sessionId,
      campaignId: conversion.campaignId ?? null,
      variantId: conversion.variantId ?? null,
      goal: conversion.goal,
      value: conversion.value ?? null,
      properties: { source: 'server' },
    });
  });
  return result;
}
