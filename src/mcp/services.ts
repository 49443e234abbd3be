/**
 * The domain services that tool actions, resources and task handles call: the MCP edge's own view of what it
 * needs, so it depends on the domain and not on the composition root that builds it (`container.ts` hands in
 * its full service set, which satisfies this interface).
 */
import type { AnalyticsQueryService } from '../domain/analytics/analytics-query.service.ts';
import type { AuditService } from '../domain/audit/audit.service.ts';
import type { BrandService } from '../domain/brand/brand.service.ts';
import type { CampaignsService } from '../domain/campaigns/campaigns.service.ts';
import type { ChannelAccountsService } from '../domain/channels/channel-accounts.service.ts';
import type { ChannelPostsService } from '../domain/channels/channel-posts.service.ts';
import type { FilmsService } from '../domain/films/films.service.ts';
import type { GenerationLauncher } from '../domain/generation/generation-launcher.ts';
import type { JobsService } from '../domain/jobs/jobs.service.ts';
import type { HealthService } from '../domain/platform/health.service.ts';
import type { createProductImportsService } from '../domain/products/product-imports.service.ts';
import type { ProductsService } from '../domain/products/products.service.ts';
import type { RendersService } from '../domain/renders/renders.service.ts';
import type { SurfacesService } from '../domain/surfaces/surfaces.service.ts';
import type { OrganizationService } from '../domain/workspaces/organization.service.ts';

export interface McpServices {
  analytics: AnalyticsQueryService;
  audit: AuditService;
  brand: BrandService;
  campaigns: CampaignsService;
  channelAccounts: ChannelAccountsService;
  channelPosts: ChannelPostsService;
  films: FilmsService;
  generation: GenerationLauncher;
  health: HealthService;
  jobs: JobsService;
  organization: OrganizationService;
  productImports: ReturnType<typeof createProductImportsService>;
  products: ProductsService;
  renders: RendersService;
  surfaces: SurfacesService;
}
