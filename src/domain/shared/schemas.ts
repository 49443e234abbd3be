/**
 * Schema atoms every domain area shares: entity ids, absolute http(s) URLs, ISO date-times and conversion goal
 * keys. Each is defined once here; domain schemas compose them and MCP tools add descriptions on top
 * (`.describe()` returns a copy, so a description never leaks back into the domain's schema).
 */
import { z } from 'zod';
import { ULID_PATTERN } from './ids.ts';

/** An id of one kind: its prefix and a ULID (`cmp_01J…`). */
export const idSchema = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}_${ULID_PATTERN}$`), `must be a ${what} id (${prefix}_…)`);

export const WorkspaceId = idSchema('ws', 'workspace');
export const CampaignId = idSchema('cmp', 'campaign');
export const VariantId = idSchema('var', 'variant');
export const DeploymentId = idSchema('dep', 'deployment');
export const ProductId = idSchema('prd', 'product');
export const SurfaceId = idSchema('srf', 'surface');
export const ZoneId = idSchema('zon', 'zone');
export const JobId = idSchema('job', 'job');
export const FilmId = idSchema('fcm', 'film commission');
export const ChannelAccountId = idSchema('cha', 'channel account');
export const ChannelPostId = idSchema('chp', 'channel post');

/** An absolute http(s) URL as a person would paste it (surrounding spaces dropped). */
export const HttpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an absolute http(s) URL');

/**
 * A conversion goal key (`purchase`, `newsletter:signup`): what a campaign counts, what a beacon or a server
 * reports.
 */
export const GoalKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1–64 letters, digits, _ . : -');

/** An ISO 8601 date-time with an offset (`2026-12-01T00:00:00Z`). */
export const IsoDateTime = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z',
});
