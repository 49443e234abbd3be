/**
 * Reporting windows and the vocabulary shared by every analytics read.
 *
 * A window is the last N UTC days including today (`7d` = today and the six days before). Rollups are per
 * UTC day, so a window is exactly a set of daily rows; "today" is partial and grows as events are rolled up.
 */
import { ValidationError } from '../../errors.ts';

export const ANALYTICS_WINDOWS = ['1d', '7d', '28d', '90d'] as const;
export type AnalyticsWindow = (typeof ANALYTICS_WINDOWS)[number];
export const DEFAULT_WINDOW: AnalyticsWindow = '7d';

export const SNAPSHOT_SECTIONS = [
  'summary',
  'campaigns',
  'variants',
  'surfaces',
  'timeseries',
  'concierge',
  'channels',
] as const;
export type SnapshotSection = (typeof SNAPSHOT_SECTIONS)[number];

/**
 * Below this many distinct sessions a rate is anecdotal: figures are still reported, with `smallSample: true`
 * so an agent says so instead of drawing conclusions.
 */
export const SMALL_SAMPLE_SESSIONS = 100;

export interface ResolvedWindow {
  window: AnalyticsWindow;
  /** First UTC day, `YYYY-MM-DD`. */
  from: string;
  /** Last UTC day (today), `YYYY-MM-DD`. */
  to: string;
  days: number;
}

const DAY_MS = 86_400_000;

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `days` after `day` (both `YYYY-MM-DD`; negative goes back). */
export function shiftDay(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

export function resolveWindow(window: string | undefined, now: Date): ResolvedWindow {
  const chosen = (window ?? DEFAULT_WINDOW) as AnalyticsWindow;
  if (!ANALYTICS_WINDOWS.includes(chosen)) {
    throw new ValidationError(`window must be one of ${ANALYTICS_WINDOWS.join(', ')}`, {
      issues: [{ field: 'window', message: `got ${JSON.stringify(window)}` }],
    });
  }
  const days = Number.parseInt(chosen, 10);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { window: chosen, from: utcDay(new Date(today - (days - 1) * DAY_MS)), to: utcDay(new Date(today)), days };
}

/** `numerator / denominator`, or null when there is nothing to divide by (never NaN or Infinity in output). */
export function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}
