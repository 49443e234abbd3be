/**
 * Events the public brand sites emit: impressions (a variant rendered in a zone to a session), clicks,
 * conversions and concierge questions. Sessions are first-party and anonymous (a random id in a cookie).
 * Every event carries an idempotent `eventId`: recording the same id twice counts once.
 */
/**
 * The shape of a session id: the brand site's anonymous visitor id (the `cp_vid` cookie, 16 random bytes in
 * base64url), which a server reporting a conversion passes back.
 */
export const VISITOR_ID = /^[A-Za-z0-9_-]{22}$/;

export const SITE_EVENT_TYPES = ['impression', 'click', 'conversion', 'concierge_question'] as const;
export type SiteEventType = (typeof SITE_EVENT_TYPES)[number];

export interface SiteEvent {
  /** Idempotency key: a UUID minted when the page was served (beacons) or by the emitter (server side). */
  eventId: string;
  workspaceId: string;
  type: SiteEventType;
  occurredAt: Date;
  /** The anonymous first-party session; null when none applies (an agent fetching markdown without cookies). */
  sessionId: string | null;
  campaignId?: string | null;
  variantId?: string | null;
  surfaceId?: string | null;
  zoneId?: string | null;
  /** Conversion goal key (conversions only). */
  goal?: string | null;
  /** Conversion value in the workspace's currency (conversions only). */
  value?: number | null;
  /** Small, type-specific details, e.g. `{ query, answered }` for a concierge question. Never personal data. */
  properties?: Record<string, unknown>;
}

/** Where events go. Recording never throws into page serving: emitters await it only where loss matters. */
export interface SiteEventSink {
  record(events: SiteEvent[]): Promise<void>;
}
