import { Migration } from '@mikro-orm/migrations';

/**
 * Social channels: connected accounts (credentials sealed, see domain/channels/channel-access.ts) and posts, plus
 * the channel read models kept by hand like every `analytics_*` table (outside the entity schema diff):
 *
 * - `analytics_channel_metrics_daily`: per post and UTC day, the network's engagement counts as last pulled
 *   that day (cumulative since the post was published; a measure the network lacks stays null);
 * - `analytics_channel_clicks`: every visit through a post's attributed link (the brand host's hand-off);
 * - `analytics_channel_sessions`: per visitor session and post, its first visit and its first attributed
 *   conversion (the rollup fills that in);
 * - `analytics_channel_conversions_daily`: per post and UTC day, sessions that converted and their value.
 */
export class Migration20261125230911_channels extends Migration {
  override name = 'Migration20261125230911_channels';

  override up(): void | Promise<void> {
    this.addSql(`create type "channel_account_status" as enum ('active', 'needs_reconnect', 'disconnected');`);
    this.addSql(
      `create type "channel_post_status" as enum ('draft', 'scheduled', 'publishing', 'published', 'failed', 'deleted');`,
    );
    this.addSql(
      `create table "channel_accounts" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "network" varchar(20) not null, "external_id" varchar(200) not null, "handle" varchar(253) not null, "display_name" varchar(200) null, "status" "channel_account_status" not null default 'active', "status_reason" text null, "credentials" text null, "access_expires_at" timestamptz null, "quota" jsonb null, "connected_by" varchar(200) not null, "connected_at" timestamptz not null, "last_success_at" timestamptz null, "disconnected_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "channel_accounts_workspace_id_created_at_index" on "channel_accounts" ("workspace_id", "created_at");`,
    );
    this.addSql(
      `alter table "channel_accounts" add constraint "channel_accounts_workspace_id_network_external_id_unique" unique ("workspace_id", "network", "external_id");`,
    );

    this.addSql(
      `create table "channel_posts" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "account_id" varchar(40) not null, "network" varchar(20) not null, "status" "channel_post_status" not null default 'draft', "campaign_id" varchar(40) null, "variant_id" varchar(40) null, "text" text not null, "link" jsonb null, "media" jsonb not null default '[]', "langs" text[] not null default '{}', "scheduled_at" timestamptz null, "record_key" varchar(64) not null, "first_attempt_at" timestamptz null, "external_id" varchar(400) null, "external_url" varchar(400) null, "published_at" timestamptz null, "attempts" int not null default 0, "error" jsonb null, "metrics" jsonb null, "metrics_updated_at" timestamptz null, "job_id" varchar(40) null, "version" int not null default 1, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "channel_posts_workspace_id_created_at_id_index" on "channel_posts" ("workspace_id", "created_at", "id");`,
    );
    this.addSql(
      `create index "channel_posts_workspace_id_account_id_status_index" on "channel_posts" ("workspace_id", "account_id", "status");`,
    );
    this.addSql(
      `create index "channel_posts_status_published_at_index" on "channel_posts" ("status", "published_at");`,
    );
    this.addSql(
      `alter table "channel_posts" add constraint "channel_posts_account_id_record_key_unique" unique ("account_id", "record_key");`,
    );

    this.addSql(
      `alter table "channel_accounts" add constraint "channel_accounts_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "channel_posts" add constraint "channel_posts_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "channel_posts" add constraint "channel_posts_account_id_foreign" foreign key ("account_id") references "channel_accounts" ("id");`,
    );
    this.addSql(
      `alter table "channel_posts" add constraint "channel_posts_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "channel_posts" add constraint "channel_posts_variant_id_foreign" foreign key ("variant_id") references "variants" ("id") on delete set null;`,
    );

    this.addSql(`create table "analytics_channel_metrics_daily" (
      "workspace_id" varchar(40) not null,
      "post_id" varchar(40) not null,
      "day" date not null,
      "network" varchar(20) not null,
      "account_id" varchar(40) not null,
      "campaign_id" varchar(40) null,
      "variant_id" varchar(40) null,
      "impressions" bigint null,
      "likes" bigint null,
      "reposts" bigint null,
      "replies" bigint null,
      "quotes" bigint null,
      "bookmarks" bigint null,
      "captured_at" timestamptz not null,
      primary key ("post_id", "day")
    );`);
    this.addSql(
      `create index "analytics_channel_metrics_daily_workspace_idx" on "analytics_channel_metrics_daily" ("workspace_id", "day");`,
    );
    this.addSql(`create table "analytics_channel_clicks" (
      "click_id" uuid not null primary key,
      "workspace_id" varchar(40) not null,
      "post_id" varchar(40) not null,
      "network" varchar(20) not null,
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,
      "session_id" varchar(64) not null,
      "occurred_at" timestamptz not null
    );`);
    this.addSql(
      `create index "analytics_channel_clicks_workspace_idx" on "analytics_channel_clicks" ("workspace_id", "occurred_at");`,
    );
    this.addSql(`create table "analytics_channel_sessions" (
      "workspace_id" varchar(40) not null,
      "session_id" varchar(64) not null,
      "post_id" varchar(40) not null,
      "network" varchar(20) not null,
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,
      "first_click_at" timestamptz not null,
      "converted_at" timestamptz null,
      primary key ("workspace_id", "session_id", "post_id")
    );`);
    this.addSql(`create table "analytics_channel_conversions_daily" (
      "workspace_id" varchar(40) not null,
      "day" date not null,
      "post_id" varchar(40) not null,
      "network" varchar(20) not null,
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,
      "converted_sessions" bigint not null default 0,
      "conversion_value" numeric(18, 2) not null default 0,
      primary key ("workspace_id", "day", "post_id")
    );`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "analytics_channel_conversions_daily";`);
    this.addSql(`drop table if exists "analytics_channel_sessions";`);
    this.addSql(`drop table if exists "analytics_channel_clicks";`);
    this.addSql(`drop table if exists "analytics_channel_metrics_daily";`);
    this.addSql(`alter table "channel_posts" drop constraint "channel_posts_account_id_foreign";`);

    this.addSql(`drop table if exists "channel_accounts" cascade;`);
    this.addSql(`drop table if exists "channel_posts" cascade;`);

    this.addSql(`drop type "channel_account_status";`);
    this.addSql(`drop type "channel_post_status";`);
  }
}
