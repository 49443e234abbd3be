import { Migration } from '@mikro-orm/migrations';

/**
 * Incremental analytics rollups (written by hand: `analytics_*` tables are outside the entity schema diff).
 * See src/domain/analytics/rollups.ts for how they are maintained and why the watermark is safe.
 */
export class Migration20261122100000_analytics_rollups extends Migration {
  override name = 'Migration20261122100000_analytics_rollups';

  override up(): void | Promise<void> {
    // The rollup reads events in (received_at, event_id) order; each daily partition gets this index too.
    this.addSql(`create index "analytics_events_received_idx" on "analytics_events" ("received_at", "event_id");`);
    // Concierge questions are read raw (their text is not rolled up); this keeps that read off the impressions.
    this.addSql(
      `create index "analytics_events_concierge_idx" on "analytics_events" ("workspace_id", "occurred_at") where "type" = 'concierge_question';`,
    );
    this.addSql(`create table "analytics_rollup_watermarks" (
      "name" varchar(40) not null primary key,
      "received_at" timestamptz not null default '-infinity',
      "event_id" uuid not null default '00000000-0000-0000-0000-000000000000',
      "events_total" bigint not null default 0,
      "updated_at" timestamptz not null default now()
    );`);
    this.addSql(`insert into "analytics_rollup_watermarks" ("name") values ('events');`);
    const counters = `
      "impressions" bigint not null default 0,
      "unattributed_impressions" bigint not null default 0,
      "clicks" bigint not null default 0,
      "conversions" bigint not null default 0,
      "conversion_value" numeric(18, 2) not null default 0,
      "concierge_questions" bigint not null default 0,
      "reach_sketch" bytea null,`;
    this.addSql(`create table "analytics_rollups_daily" (
      "workspace_id" varchar(40) not null,
      "day" date not null,
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,
      "zone_id" varchar(40) not null,${counters}
      "converted_sessions" bigint not null default 0,
      "converted_value" numeric(18, 2) not null default 0,
      "updated_at" timestamptz not null default now(),
      primary key ("workspace_id", "day", "campaign_id", "variant_id", "zone_id")
    );`);
    this.addSql(
      `create index "analytics_rollups_daily_campaign_idx" on "analytics_rollups_daily" ("workspace_id", "campaign_id", "day");`,
    );
    this.addSql(`create table "analytics_reach_daily" (
      "workspace_id" varchar(40) not null,
      "day" date not null,${counters}
      "updated_at" timestamptz not null default now(),
      primary key ("workspace_id", "day")
    );`);
    this.addSql(`create table "analytics_variant_totals" (
      "workspace_id" varchar(40) not null,
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,${counters}
      "exposed_sessions" bigint not null default 0,
      "converted_sessions" bigint not null default 0,
      "converted_value" numeric(18, 2) not null default 0,
      "first_seen" timestamptz null,
      "last_seen" timestamptz null,
      "updated_at" timestamptz not null default now(),
      primary key ("workspace_id", "campaign_id", "variant_id")
    );`);
    // Exact experiment units: one row per session per campaign, holding the variant it was first exposed to
    // (intention to treat) and when it first converted. Grows with sessions, not with events.
    this.addSql(`create table "analytics_exposures" (
      "workspace_id" varchar(40) not null,
      "campaign_id" varchar(40) not null,
      "session_id" varchar(64) not null,
      "variant_id" varchar(40) not null,
      "first_exposed_at" timestamptz not null,
      "converted_at" timestamptz null,
      "conversion_value" numeric(18, 2) not null default 0,
      primary key ("workspace_id", "campaign_id", "session_id")
    );`);
    this.addSql(
      `create index "analytics_exposures_session_idx" on "analytics_exposures" ("workspace_id", "session_id");`,
    );
    // The smallest always-valid p-value each variant has shown (the mSPRT running minimum), so a result
    // declared at one look cannot flip back at the next.
    this.addSql(`create table "analytics_experiment_looks" (
      "workspace_id" varchar(40) not null,
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,
      "control_variant_id" varchar(40) not null,
      "min_p_value" double precision not null,
      "looks" integer not null default 1,
      "updated_at" timestamptz not null default now(),
      primary key ("workspace_id", "campaign_id", "variant_id", "control_variant_id")
    );`);
    this.addSql(`alter table "campaigns" add column "conversion_goals" text[] not null default '{}';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "campaigns" drop column "conversion_goals";`);
    this.addSql(`drop table if exists "analytics_experiment_looks";`);
    this.addSql(`drop table if exists "analytics_exposures";`);
    this.addSql(`drop table if exists "analytics_variant_totals";`);
    this.addSql(`drop table if exists "analytics_reach_daily";`);
    this.addSql(`drop table if exists "analytics_rollups_daily";`);
    this.addSql(`drop table if exists "analytics_rollup_watermarks";`);
    this.addSql(`drop index if exists "analytics_events_concierge_idx";`);
    this.addSql(`drop index if exists "analytics_events_received_idx";`);
  }
}
