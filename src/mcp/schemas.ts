/**
 * Shapes shared by tool inputs and outputs. Inputs are tight (strict objects, bounded strings); outputs are
 * loose objects, so adding a field later never breaks a client that validates `structuredContent`.
 */
import { z } from 'zod';
import { MAX_PAGE_SIZE } from '../domain/shared/pagination.ts';
import { CHANNEL_METRICS, type ChannelMetric } from '../domain/channels/channel-networks.ts';
import {
  CampaignId,
  DeploymentId,
  ChannelAccountId,
  ChannelPostId,
  FilmId,
  JobId,
  ProductId,
  SurfaceId,
  VariantId,
  ZoneId,
} from '../domain/shared/schemas.ts';

/** The domain's id schemas, described for agents. */
export const Ids = {
  campaign: CampaignId.describe('A campaign id (cmp_…).'),
  variant: VariantId.describe('A variant id (var_…).'),
  deployment: DeploymentId.describe('A deployment id (dep_…).'),
  product: ProductId.describe('A product id (prd_…).'),
  surface: SurfaceId.describe('A surface id (srf_…).'),
  zone: ZoneId.describe('A zone id (zon_…).'),
  job: JobId.describe('A job id (job_…).'),
  film: FilmId.describe('A film commission id (fcm_…).'),
  channelAccount: ChannelAccountId.describe('A connected channel account id (cha_…).'),
  channelPost: ChannelPostId.describe('A channel post id (chp_…).'),
};

export const Paging = {
  cursor: z.string().max(200).optional().describe('Opaque nextCursor from the previous page; omit for the first page.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .optional()
    .describe(`Page size (default 20, at most ${MAX_PAGE_SIZE}).`),
};

const nullableString = z.string().nullable();

export const WorkspaceEcho = z
  .looseObject({ id: z.string(), name: z.string() })
  .describe('The workspace this call acted on; tell the user its name.');

export const CampaignOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  objective: nullableString,
  publicSummary: nullableString,
  status: z.string(),
  channels: z.array(z.string()),
  conversionGoals: z.array(z.string()),
  productIds: z.array(z.string()),
  slug: z.string(),
  startsAt: nullableString,
  endsAt: nullableString,
  publishedAt: nullableString,
  variantCount: z.number(),
  activeDeployments: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const VariantOut = z.looseObject({
  id: z.string(),
  campaignId: z.string(),
  name: z.string(),
  headline: z.string(),
  body: z.string(),
  callToAction: z.string(),
  ctaUrl: nullableString,
  imageRefs: z.array(z.looseObject({ url: z.string() })),
  channelFields: z.looseObject({}),
  status: z.string(),
  weight: z.number(),
  isControl: z.boolean(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const DeploymentOut = z.looseObject({
  id: z.string(),
  campaignId: z.string(),
  surfaceId: z.string(),
  zoneId: z.string(),
  status: z.string(),
  priority: z.number(),
  startsAt: nullableString,
  endsAt: nullableString,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ProductOut = z.looseObject({
  id: z.string(),
  title: z.string(),
  description: nullableString,
  price: z.number().nullable(),
  currency: nullableString,
  images: z.array(z.string()),
  url: nullableString,
  brand: nullableString,
  sku: nullableString,
  attributes: z.record(z.string(), z.string()),
  origin: z.string(),
  sourceUrl: nullableString,
  untrusted: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ZoneOut = z.looseObject({
  id: z.string(),
  surfaceId: z.string(),
  name: z.string(),
  key: z.string(),
  kind: z.string(),
  constraints: z.looseObject({}),
  createdAt: z.string(),
});

export const SurfaceOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  path: nullableString,
  channel: nullableString,
  description: nullableString,
  url: nullableString,
  createdAt: z.string(),
  zones: z.array(ZoneOut).optional(),
});

export const BrandOut = z.looseObject({
  brandbook: z.looseObject({}),
  profile: z.looseObject({}),
  voice: z.looseObject({}),
  concierge: z.looseObject({}),
  version: z.number(),
  updatedAt: nullableString,
});

export const NextCursor = z
  .string()
  .nullable()
  .optional()
  .describe('Pass to the next call to continue; null when this was the last page.');

export const QuoteOut = z
  .looseObject({
    id: z.string(),
    operation: z.string(),
    credits: z.number(),
    covers: z.array(z.looseObject({ step: z.string(), credits: z.number(), description: z.string() })),
    argumentsHash: z.string(),
    expiresAt: z.string(),
    available: z.number(),
    sufficient: z.boolean(),
  })
  .describe('Show this to the user; after they accept, repeat the same call with quoteId. Nothing was spent.');

/** A background job as `manage_products import_from_url` (CSV) returns it. */
export const JobOut = z.looseObject({
  id: z.string(),
  taskId: z.string(),
  kind: z.string(),
  status: z.string(),
  progress: z.looseObject({ fraction: z.number() }),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

export const GenerationOut = z.looseObject({
  jobId: z.string(),
  taskId: z.string(),
  campaignId: z.string(),
  mode: z.string(),
  status: z.string(),
  step: nullableString,
  progress: z.number(),
  message: nullableString,
  steps: z.array(z.string()),
  variantIds: z.array(z.string()),
  creditsCaptured: z.number().nullable(),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.string(),
  finishedAt: nullableString,
  pollIntervalMs: z.number(),
});

export const RenderOut = z.looseObject({
  jobId: z.string(),
  taskId: z.string(),
  mode: z.string(),
  status: z.string(),
  progress: z.number(),
  message: nullableString,
  output: z
    .looseObject({
      url: z.string(),
      mimeType: z.string(),
      bytes: z.number(),
      width: z.number(),
      height: z.number(),
      durationSeconds: z.number().nullable(),
    })
    .nullable(),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.string(),
  finishedAt: nullableString,
  pollIntervalMs: z.number(),
});

export const FilmOut = z.looseObject({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  waitingFor: nullableString,
  revision: z.number(),
  jobId: nullableString,
  taskId: nullableString,
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Engagement a network reports; a measure it does not have is null (unknown), never 0. */
export const ChannelMetricsOut = z.looseObject(
  Object.fromEntries(CHANNEL_METRICS.map((name) => [name, z.number().nullable()])) as Record<
    ChannelMetric,
    z.ZodNullable<z.ZodNumber>
  >,
);

export const ChannelAccountOut = z.looseObject({
  id: z.string(),
  network: z.string(),
  handle: z.string(),
  displayName: nullableString,
  kind: nullableString,
  externalId: z.string(),
  profileUrl: z.string(),
  status: z.string(),
  statusReason: nullableString,
  connectedBy: z.string(),
  connectedAt: z.string(),
  lastSuccessAt: nullableString,
  quota: z
    .looseObject({
      policy: nullableString,
      limit: z.number(),
      remaining: z.number(),
      resetAt: z.string(),
      observedAt: z.string(),
    })
    .nullable(),
});

export const ChannelPostOut = z.looseObject({
  id: z.string(),
  network: z.string(),
  accountId: z.string(),
  status: z.string(),
  text: z.string(),
  link: z.looseObject({ url: z.string(), display: z.string() }).nullable(),
  media: z.array(z.looseObject({ url: z.string(), mimeType: z.string(), alt: z.string() })),
  campaignId: nullableString,
  variantId: nullableString,
  scheduledAt: nullableString,
  publishedAt: nullableString,
  externalId: nullableString,
  externalUrl: nullableString,
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  attempts: z.number(),
  metrics: ChannelMetricsOut.nullable(),
  removedBy: nullableString,
  options: z.record(z.string(), z.unknown()),
  jobId: nullableString,
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const IssueOut = z.looseObject({ field: z.string(), rule: z.string(), message: z.string() });

export const PostValidationOut = z
  .looseObject({
    valid: z.boolean(),
    issues: z.array(IssueOut),
    warnings: z.array(IssueOut),
    preview: z.looseObject({
      text: z.string(),
      length: z.number(),
      limit: z.number(),
      unit: z.string(),
      facets: z.array(z.looseObject({ kind: z.string(), text: z.string(), target: nullableString })),
    }),
  })
  .describe(
    'What the network would be sent, and every reason it would refuse it (issues) or might surprise (warnings).',
  );
