/**
 * Deterministic synthetic brand-site traffic for the analytics benchmark (bench/analytics.ts).
 *
 * One seeded PRNG (sfc32) drives everything, so the same seed, size and "now" give the same events: session
 * ids, event ids (UUIDv7 carrying the event time, as the beacons mint them), times and outcomes. What it models:
 *
 * - Days: the last `days` UTC days including today (today only up to now), busier towards the present
 *   (growth), quieter at weekends, and within a day an afternoon/evening peak.
 * - Visits: a session (22-character base64url id, like the site's cookie) that is new or, a third of the time,
 *   returning from the last 30 days — so Reach over 7, 28 or 90 days is far below the sum of daily Reach, as
 *   on a real site. A few percent of visits are agents reading markdown twins without cookies: their
 *   impressions have no session.
 * - Each visit meets 1–3 of the campaigns live that day (chosen by popularity), and sees each 1–3 times in
 *   the campaign's zones (or on the campaign page, no zone). The variant is sticky per session and campaign
 *   and follows the configured weights; a session-less read picks one at random by weight.
 * - Clicks at the campaign's click rate per impression; a conversion (goal `purchase`, a value) at the
 *   variant's true conversion rate per visit; now and then a concierge question, answered or not.
 *
 * Events are handed out in batches that never split a visit, in time order of the visits' starts.
 */
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';

const DAY_MS = 86_400_000;

/** sfc32 (Chris Doty-Humphrey's Small Fast Chaotic PRNG): 128 bits of state, fast, good statistics. */
export function sfc32(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 16; i++) next(); // let the seed diffuse through the state
  return next;
}

/** A stateless 32-bit mix (a murmur3-style finaliser): sticky choices derived from ids. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

export interface VariantPlan {
  name: string;
  /** Configured traffic weight (0–100), as stored on the variant. */
  weight: number;
  /** True conversion probability per visit that meets the campaign. */
  conversionRate: number;
}

export interface CampaignPlan {
  name: string;
  /** What the variants' true rates make of it: one clearly better or worse arm, or an A/A test. */
  kind: 'winner' | 'loser' | 'a/a';
  /** Day indexes (0 = oldest day of the range) the campaign is on the site, inclusive. */
  firstDay: number;
  lastDay: number;
  popularity: number;
  /** Click probability per impression. */
  clickRate: number;
  /** Indexes into the workspace's zones where the campaign is placed. */
  zones: number[];
  variants: VariantPlan[];
}

export interface WorkspacePlan {
  label: string;
  /** Share of all visits. */
  share: number;
  /** Zones per surface (surfaces are created in this order). */
  surfaces: { name: string; path: string; zones: number }[];
  campaigns: CampaignPlan[];
}

/** A plan with the ids its entities got in the database. */
export interface TrafficWorkspace {
  plan: WorkspacePlan;
  workspaceId: string;
  campaignIds: string[];
  /** `variantIds[c][v]`: variant v of campaign c. */
  variantIds: string[][];
  zones: { zoneId: string; surfaceId: string }[];
}

/**
 * A workspace's campaigns: most run the whole range, some started later or ended earlier; 2–4 variants with
 * the control first; a clearly better variant in some campaigns, a clearly worse one in a few, A/A in the rest.
 */
export function planWorkspace(options: {
  label: string;
  share: number;
  campaigns: number;
  days: number;
  seed: number;
  surfaces: { name: string; path: string; zones: number }[];
}): WorkspacePlan {
  const random = sfc32(options.seed);
  const zoneCount = options.surfaces.reduce((sum, surface) => sum + surface.zones, 0);
  const campaigns: CampaignPlan[] = [];
  for (let c = 0; c < options.campaigns; c++) {
    const variantCount = 2 + Math.floor(random() * 3);
    const kind: CampaignPlan['kind'] = c % 5 === 1 ? 'winner' : c % 10 === 3 ? 'loser' : 'a/a';
    const base = 0.005 + random() * 0.015; // 0.5–2% per visit; the better arm reaches about 3%
    // Weights: an even split, or the control holding half and the challengers sharing the rest.
    const evenSplit = random() < 0.5;
    const variants: VariantPlan[] = Array.from({ length: variantCount }, (_, v) => ({
      name: v === 0 ? 'Control' : `Challenger ${String.fromCharCode(64 + v)}`,
      weight: evenSplit ? Math.floor(100 / variantCount) : v === 0 ? 50 : Math.floor(50 / (variantCount - 1)),
      conversionRate: base,
    }));
    if (kind === 'winner') variants[1]!.conversionRate = base * 1.6;
    if (kind === 'loser') variants[variantCount - 1]!.conversionRate = base * 0.5;
    const late = random() < 0.3 ? Math.floor(random() * options.days * 0.6) : 0;
    const early = random() < 0.15 ? Math.floor(random() * options.days * 0.3) : 0;
    const firstZone = Math.floor(random() * zoneCount);
    campaigns.push({
      name: `${options.label} campaign ${c + 1}`,
      kind,
      firstDay: late,
      lastDay: Math.max(late + 7, options.days - 1 - early),
      // Skewed: a few campaigns carry most of the traffic.
      popularity: 1 / (1 + c * 0.35) + random() * 0.2,
      clickRate: 0.02 + random() * 0.03,
      zones: zoneCount > 1 ? [firstZone, (firstZone + 1 + Math.floor(random() * (zoneCount - 1))) % zoneCount] : [0],
      variants,
    });
  }
  return { label: options.label, share: options.share, surfaces: options.surfaces, campaigns };
}

const QUESTIONS = [
  'Do you ship to Canada?',
  'What is your return policy?',
  'Is the jacket waterproof?',
  'How long does delivery take?',
  'Do you have a student discount?',
  'Can I change my order?',
  'What sizes do the boots come in?',
  'Are the bags vegan leather?',
  'Do you price match?',
  'Where is my order?',
  'Is there a warranty?',
  'Do you have gift cards?',
  'Can I pick up in store?',
  'Is the sale final?',
  'What materials are used?',
  'Do you restock sold-out items?',
];

export interface TrafficOptions {
  /** Exactly this many events are produced. */
  events: number;
  days: number;
  seed: number;
  now: Date;
  /** Share of visits that come back with an earlier session (from the last 30 days). */
  returning?: number;
  /** Share of visits without a session (agents reading markdown twins). */
  sessionless?: number;
}

export interface TrafficStats {
  events: number;
  visits: number;
  sessions: number;
  byType: Record<SiteEvent['type'], number>;
  sessionlessImpressions: number;
  /** Wall time spent inside the generator (not in the database). */
  generationMs: number;
}

interface Visit {
  workspace: number;
  start: number;
}

interface WorkspaceState {
  traffic: TrafficWorkspace;
  /** Session ids in the order they were first seen; `dayStart[d]` is the first index minted on day d. */
  sessions: string[];
  dayStart: number[];
}

export class TrafficGenerator {
  readonly stats: TrafficStats;
  private readonly options: TrafficOptions;
  private readonly random: () => number;
  private readonly states: WorkspaceState[];
  private readonly visitsPerDay: number[][];
  private readonly today: number;
  private readonly returning: number;
  private readonly sessionless: number;
  private day = 0;
  private visits: Visit[] = [];
  private nextVisit = 0;
  /** A visit generated but left for the next batch (it did not fit), handed out then as generated. */
  private rewind: { visit: Visit; events: SiteEvent[] } | null = null;

  /**
   * Visits per day: a calibration run on a separate random stream measures events per visit, and the days
   * are sized for 0.5% fewer events than asked; the rest are more visits today, so the count is exact and no
   * day is cut short.
   */
  static create(workspaces: TrafficWorkspace[], options: TrafficOptions): TrafficGenerator {
    const probe = new TrafficGenerator(workspaces, { ...options, seed: options.seed ^ 0x5bd1e995 }, null);
    return new TrafficGenerator(workspaces, options, probe.eventsPerVisit(100_000));
  }

  private constructor(workspaces: TrafficWorkspace[], options: TrafficOptions, eventsPerVisit: number | null) {
    this.options = options;
    this.random = sfc32(options.seed);
    this.returning = options.returning ?? 0.33;
    this.sessionless = options.sessionless ?? 0.03;
    this.today = Date.UTC(options.now.getUTCFullYear(), options.now.getUTCMonth(), options.now.getUTCDate());
    this.states = workspaces.map((traffic) => ({ traffic, sessions: [], dayStart: [] }));
    this.stats = {
      events: 0,
      visits: 0,
      sessions: 0,
      byType: { impression: 0, click: 0, conversion: 0, concierge_question: 0 },
      sessionlessImpressions: 0,
      generationMs: 0,
    };
    const weights = Array.from({ length: options.days }, (_, d) => this.dayWeight(d));
    const sum = weights.reduce((a, b) => a + b, 0);
    const totalVisits = eventsPerVisit ? (options.events / eventsPerVisit) * 0.995 : 0;
    this.visitsPerDay = weights.map((weight) =>
      workspaces.map((workspace) => Math.round((totalVisits * weight * workspace.plan.share) / sum)),
    );
  }

  /** Day index d is `days - 1 - d` days before today. */
  private dayStartMs(d: number): number {
    return this.today - (this.options.days - 1 - d) * DAY_MS;
  }

  /** Milliseconds of day d that have happened (all of it, except today's part after now − 1 min). */
  private dayLengthMs(d: number): number {
    return Math.max(60_000, Math.min(DAY_MS, this.options.now.getTime() - 60_000 - this.dayStartMs(d)));
  }

  private dayWeight(d: number): number {
    const weekday = new Date(this.dayStartMs(d)).getUTCDay();
    const week = [0.75, 1.05, 1.1, 1.1, 1.05, 1, 0.8][weekday]!;
    const growth = 0.7 + (0.6 * d) / Math.max(1, this.options.days - 1);
    return week * growth * (this.dayLengthMs(d) / DAY_MS);
  }

  /** Mean events per visit over `visits` visits spread over the range, each workspace by its share. */
  private eventsPerVisit(visits: number): number {
    let events = 0;
    for (let i = 0; i < visits; i++) {
      const d = Math.floor((i / visits) * this.options.days);
      events += this.eventsOf({ workspace: this.pickWorkspace(), start: this.dayStartMs(d) }, d).length;
    }
    return events / visits;
  }

  /** The next batch of at most `max` events (whole visits), or null when all events have been produced. */
  nextBatch(max = 1000): SiteEvent[] | null {
    const started = performance.now();
    try {
      const batch: SiteEvent[] = [];
      while (this.stats.events < this.options.events) {
        if (this.nextVisit >= this.visits.length) {
          if (this.day < this.options.days) this.planDay(this.day++);
          else this.topUpToday();
          continue;
        }
        const visit = this.visits[this.nextVisit]!;
        const events = this.eventsOf(visit, this.day - 1);
        if (batch.length > 0 && batch.length + events.length > max) {
          // The visit opens the next batch with these same events (generating it again would draw new ones).
          this.rewind = { visit, events };
          break;
        }
        this.nextVisit++;
        this.stats.visits++;
        for (const event of events) {
          if (this.stats.events >= this.options.events) break;
          batch.push(event);
          this.count(event);
        }
      }
      return batch.length ? batch : null;
    } finally {
      this.stats.generationMs += performance.now() - started;
    }
  }

  private count(event: SiteEvent): void {
    this.stats.events++;
    this.stats.byType[event.type]++;
    if (event.type === 'impression' && event.sessionId === null) this.stats.sessionlessImpressions++;
  }

  private pickWorkspace(): number {
    return this.pick(
      this.states.map((_, w) => w),
      (w) => this.states[w]!.traffic.plan.share,
    );
  }

  /** The day's visits of every workspace, in order of their start times. */
  private planDay(d: number): void {
    const start = this.dayStartMs(d);
    const length = this.dayLengthMs(d);
    const visits: Visit[] = [];
    this.visitsPerDay[d]!.forEach((count, workspace) => {
      this.states[workspace]!.dayStart[d] = this.states[workspace]!.sessions.length;
      for (let i = 0; i < count; i++) visits.push({ workspace, start: start + this.timeOfDay(length) });
    });
    visits.sort((a, b) => a.start - b.start);
    this.visits = visits;
    this.nextVisit = 0;
  }

  /** More visits today (by workspace share), a few at a time so they spread over the day, until the count is reached. */
  private topUpToday(): void {
    const d = this.options.days - 1;
    const start = this.dayStartMs(d);
    const length = this.dayLengthMs(d);
    this.visits = Array.from({ length: 20 }, () => ({
      workspace: this.pickWorkspace(),
      start: start + this.timeOfDay(length),
    })).sort((a, b) => a.start - b.start);
    this.nextVisit = 0;
  }

  /** A time within the first `length` ms of a day: quiet at night, peaking in the afternoon and evening (UTC). */
  private timeOfDay(length: number): number {
    for (;;) {
      const at = this.random() * length;
      const hour = at / 3_600_000;
      const density = 0.25 + 0.75 * Math.sin((Math.PI * Math.max(0, hour - 6)) / 18) ** 2;
      if (this.random() < density) return Math.floor(at);
    }
  }

  private pick<T>(items: readonly T[], weight: (item: T) => number, u = this.random()): T {
    const total = items.reduce((sum, item) => sum + weight(item), 0);
    let left = u * total;
    for (const item of items) {
      left -= weight(item);
      if (left < 0) return item;
    }
    return items[items.length - 1]!;
  }

  /** `bits` (≤ 32) random bits as hex digits. */
  private hex(bits: number): string {
    return Math.floor(this.random() * 2 ** bits)
      .toString(16)
      .padStart(Math.ceil(bits / 4), '0');
  }

  /** A UUIDv7 for an event at `ms` (48-bit time, version 7, variant 10, 74 random bits). */
  private eventId(ms: number): string {
    const time = ms.toString(16).padStart(12, '0');
    const variant = (8 + Math.floor(this.random() * 4)).toString(16);
    return `${time.slice(0, 8)}-${time.slice(8)}-7${this.hex(12)}-${variant}${this.hex(12)}-${this.hex(24)}${this.hex(24)}`;
  }

  /** 16 random bytes as base64url, like the site's session cookie. */
  private newSessionId(): string {
    const bytes = Buffer.allocUnsafe(16);
    for (let i = 0; i < 16; i += 4) bytes.writeUInt32LE(Math.floor(this.random() * 4294967296), i);
    return bytes.toString('base64url');
  }

  /** The session of a visit: null (an agent without cookies), a returning one, or a new one. */
  private session(state: WorkspaceState, d: number): { id: string; index: number } | null {
    if (this.random() < this.sessionless) return null;
    const from = state.dayStart[Math.max(0, d - 30)] ?? 0;
    const known = state.sessions.length - from;
    if (known > 0 && this.random() < this.returning) {
      // Recent sessions come back more often than old ones.
      const index = state.sessions.length - 1 - Math.floor(known * this.random() ** 2);
      return { id: state.sessions[index]!, index };
    }
    const id = this.newSessionId();
    state.sessions.push(id);
    this.stats.sessions++;
    return { id, index: state.sessions.length - 1 };
  }

  /** Every event of one visit, in time order. */
  private eventsOf(visit: Visit, d: number): SiteEvent[] {
    if (this.rewind?.visit === visit) {
      const { events } = this.rewind;
      this.rewind = null;
      return events;
    }
    const state = this.states[visit.workspace]!;
    const { traffic } = state;
    const session = this.session(state, d);
    const events: SiteEvent[] = [];
    const event = (at: number, fields: Omit<SiteEvent, 'eventId' | 'workspaceId' | 'occurredAt' | 'sessionId'>) => {
      // Nothing lands in the future: today's visits end by now.
      const ms = Math.min(at, this.options.now.getTime() - 1000);
      events.push({
        eventId: this.eventId(ms),
        workspaceId: traffic.workspaceId,
        occurredAt: new Date(ms),
        sessionId: session?.id ?? null,
        ...fields,
      });
    };
    const live = traffic.plan.campaigns
      .map((campaign, index) => ({ campaign, index }))
      .filter(({ campaign }) => campaign.firstDay <= d && d <= campaign.lastDay);
    const met = session === null ? 1 : this.pick([1, 2, 3], (k) => [0.55, 0.3, 0.15][k - 1]!);
    let at = visit.start;
    for (let k = 0; k < met && live.length > 0; k++) {
      const chosen = this.pick(live, (item) => item.campaign.popularity);
      live.splice(live.indexOf(chosen), 1);
      const { campaign, index: c } = chosen;
      const variantIndex = this.pick(
        campaign.variants.map((_, v) => v),
        (v) => campaign.variants[v]!.weight,
        session === null ? this.random() : mix32(session.index * 7919 + c * 104_729 + 17) / 4294967296,
      );
      const variantId = traffic.variantIds[c]![variantIndex]!;
      const campaignId = traffic.campaignIds[c]!;
      const views = this.pick([1, 2, 3], (n) => [0.5, 0.3, 0.2][n - 1]!);
      let lastZone: { zoneId: string; surfaceId: string } | null = null;
      for (let i = 0; i < views; i++) {
        at += 2000 + Math.floor(this.random() * 90_000);
        // Mostly in one of the campaign's zones; sometimes on the campaign's own page (no zone).
        lastZone =
          this.random() < 0.1
            ? null
            : traffic.zones[campaign.zones[Math.floor(this.random() * campaign.zones.length)]!]!;
        event(at, {
          type: 'impression',
          campaignId,
          variantId,
          zoneId: lastZone?.zoneId ?? null,
          surfaceId: lastZone?.surfaceId ?? null,
          properties: { source: session ? 'beacon' : 'markdown' },
        });
      }
      if (session === null) continue;
      if (this.random() < 1 - (1 - campaign.clickRate) ** views) {
        at += 1000 + Math.floor(this.random() * 60_000);
        event(at, {
          type: 'click',
          campaignId,
          variantId,
          zoneId: lastZone?.zoneId ?? null,
          surfaceId: lastZone?.surfaceId ?? null,
          properties: { source: 'beacon' },
        });
      }
      if (this.random() < campaign.variants[variantIndex]!.conversionRate) {
        at += 60_000 + Math.floor(this.random() * 20 * 60_000);
        event(at, {
          type: 'conversion',
          campaignId,
          variantId,
          goal: 'purchase',
          value: Math.round((15 + 200 * this.random() ** 2) * 100) / 100,
          properties: { source: 'beacon' },
        });
      }
    }
    if (session !== null && this.random() < 0.012) {
      // A few questions are asked a lot (Zipf-like); the last third of the list the concierge cannot answer.
      const q = Math.floor(QUESTIONS.length * this.random() ** 2);
      at += 5000 + Math.floor(this.random() * 120_000);
      event(at, {
        type: 'concierge_question',
        properties: { answered: q < (QUESTIONS.length * 2) / 3, query: QUESTIONS[q]! },
      });
    }
    return events;
  }
}
