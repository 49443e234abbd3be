/** Committed migrations, in order. `npm run db:migration:create` writes a new file and adds it here. */
import { Migration20261127230000_window_build_counters } from './Migration20261127230000_window_build_counters.ts';
import { Migration20261128060000_window_build_campaign_slice } from './Migration20261128060000_window_build_campaign_slice.ts';
import { Migration20261128120000_campaign_daily_impressions } from './Migration20261128120000_campaign_daily_impressions.ts';
import { Migration20261128013000_daily_reach_estimate } from './Migration20261128013000_daily_reach_estimate.ts';
import { Migration20261127182527_people_and_account } from './Migration20261127182527_people_and_account.ts';
import { Migration20261127150000_product_images } from './Migration20261127150000_product_images.ts';
import { Migration20261127120000_channel_networks } from './Migration20261127120000_channel_networks.ts';
import { Migration20261125230911_channels } from './Migration20261125230911_channels.ts';
import { Migration20261125110000_public_fields } from './Migration20261125110000_public_fields.ts';
import { Migration20261125100000_hashed_oidc_ids } from './Migration20261125100000_hashed_oidc_ids.ts';
import { Migration20261125090000_sliding_rate_limits } from './Migration20261125090000_sliding_rate_limits.ts';
import { Migration20261122150000_analytics_read_models } from './Migration20261122150000_analytics_read_models.ts';
import { Migration20261122100000_analytics_rollups } from './Migration20261122100000_analytics_rollups.ts';
import { Migration20261122082710_brand_sites } from './Migration20261122082710_brand_sites.ts';
import { Migration20261122070645_durable_jobs } from './Migration20261122070645_durable_jobs.ts';
import { Migration20261122061242_campaign_domain } from './Migration20261122061242_campaign_domain.ts';
import { Migration20261122044545_initial_schema } from './Migration20261122044545_initial_schema.ts';
export const MIGRATIONS = [
  Migration20261122044545_initial_schema,
  Migration20261122061242_campaign_domain,
  Migration20261122070645_durable_jobs,
  Migration20261122082710_brand_sites,
  Migration20261122100000_analytics_rollups,
  Migration20261122150000_analytics_read_models,
  Migration20261125090000_sliding_rate_limits,
  Migration20261125100000_hashed_oidc_ids,
  Migration20261125110000_public_fields,
  Migration20261125230911_channels,
  Migration20261127120000_channel_networks,
  Migration20261127150000_product_images,
  Migration20261127182527_people_and_account,
  Migration20261127230000_window_build_counters,
  Migration20261128013000_daily_reach_estimate,
  Migration20261128060000_window_build_campaign_slice,
  Migration20261128120000_campaign_daily_impressions,
];
