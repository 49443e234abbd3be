import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AuditService } from '../src/domain/audit/audit.service.ts';
import type { RepublishPort } from '../src/domain/campaigns/campaigns.service.ts';
import type { ChannelCore } from '../src/domain/channels/channel-core.ts';
import type { CreativeStudio } from '../src/domain/creative/studio.ts';
import type { CreativeServices } from '../src/domain/creative-services.ts';
import type { SafeFetch } from '../src/net/safe-fetch.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import type { PlatformLinks } from '../src/public/brand-site/site-model.ts';
import type { ToolServerListing } from '../src/public/well-known/server-card.ts';

/** What activity factories receive from the worker's composition root. */
export interface ActivityDeps extends CreativeServices {
  orm: MikroORM;
  log: Logger;
  /** Creative engines, composers and the media store, as configured. */
  studio: CreativeStudio;
  /** The SSRF-guarded fetcher for anything on the open web (CSV imports, product images). */
  safeFetch: Pick<SafeFetch, 'fetch'>;
  audit: AuditService;
  /** The worker's metrics registry (job endings, credit postings, channel posts). */
  metrics: Metrics;
  /** The social networks' adapters and the connected accounts' credentials. */
  channels: ChannelCore;
  /** Posts published within this many days have their metrics pulled. */
  channelMetricsMaxAgeDays: number;
  /** Asks for the workspace's brand site to be republished (after a live campaign changed). */
  republish: RepublishPort;
  /** What brand-site rendering needs from configuration. */
  sites: {
    links: PlatformLinks;
    /** The brand subdomain's origin for a workspace slug (`https://acme.brands.example.com`). */
    subdomainOrigin(slug: string): string;
    /**
     * The tool server's default tools for the server card, from the MCP catalogue. A function so that the
     * worker loads the catalogue (every tool module) only when it first publishes, not at boot.
     */
    toolServer(): Promise<ToolServerListing>;
  };
}
