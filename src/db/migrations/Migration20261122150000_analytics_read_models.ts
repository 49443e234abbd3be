import { Migration } from '@mikro-orm/migrations';

/**
 * Two read models that keep long snapshot windows off large reads (written by hand like the other analytics
 * tables):
 * - window builds: the union of the daily reach sketches of each long window's closed days, per workspace and
 *   slice, so a 90-day snapshot merges one sketch per variant or zone instead of one per day × zone
 *   (src/domain/analytics/window-reach.ts);
 * - concierge questions per day and question, so the concierge section no longer reads raw events
 *   (src/domain/analytics/rollups.ts). Questions already rolled up are backfilled here, under the rollup's
 *   lock, so none is counted twice or missed.
 * With that, nothing reads raw events by workspace and time any more (the rollup reads them by
 * `received_at`), so the two indexes for such reads go: every event insert paid for them.
 */
export class Migration20261122150000_analytics_read_models extends Migration {
  override name = 'Migration20261122150000_analytics_read_models';

  override up(): void | Promise<void> {
    this.addSql(`create table "analytics_window_builds" (
      "workspace_id" varchar(40) not null,
      "window_days" smallint not null,
      "through_day" date not null,
      "built_at" timestamptz not null default now(),
      primary key ("workspace_id", "window_days")
    );`);
    this.addSql(`create table "analytics_window_reach" (
      "workspace_id" varchar(40) not null,
      "window_days" smallint not null,
      "slice" varchar(10) not null check ("slice" in ('workspace', 'variant', 'zone')),
      "campaign_id" varchar(40) not null,
      "variant_id" varchar(40) not null,
      "zone_id" varchar(40) not null,
      "reach_sketch" bytea not null,
      primary key ("workspace_id", "window_days", "slice", "campaign_id", "variant_id", "zone_id")
    );`);
    this.addSql(`create table "analytics_concierge_daily" (
      "workspace_id" varchar(40) not null,
      "day" date not null,
      "question_key" text not null,
      "question" text not null,
      "asked" bigint not null default 0,
      "unanswered" bigint not null default 0,
      "last_asked_at" timestamptz not null,
      "last_unanswered_at" timestamptz null,
      primary key ("workspace_id", "day", "question_key")
    );`);
    this.addSql(`select 1 from "analytics_rollup_watermarks" where "name" = 'events' for update;`);
    this.addSql(`insert into "analytics_concierge_daily"
      ("workspace_id", "day", "question_key", "question", "asked", "unanswered", "last_asked_at", "last_unanswered_at")
      select e.workspace_id, (e.occurred_at at time zone 'UTC')::date,
        lower(trim(coalesce(e.properties->>'query', ''))), min(coalesce(e.properties->>'query', '')), count(*),
        count(*) filter (where e.properties->>'answered' = 'false'), max(e.occurred_at),
        max(e.occurred_at) filter (where e.properties->>'answered' = 'false')
      from "analytics_events" e, "analytics_rollup_watermarks" w
      where w.name = 'events' and e.type = 'concierge_question'
        and (e.received_at, e.event_id) <= (w.received_at, w.event_id)
      group by 1, 2, 3;`);
    this.addSql(`drop index if exists "analytics_events_workspace_occurred_idx";`);
    this.addSql(`drop index if exists "analytics_events_concierge_idx";`);
  }

  override down(): void | Promise<void> {
    this.addSql(
      `create index if not exists "analytics_events_workspace_occurred_idx" on "analytics_events" ("workspace_id", "occurred_at");`,
    );
    this.addSql(
      `create index if not exists "analytics_events_concierge_idx" on "analytics_events" ("workspace_id", "occurred_at") where "type" = 'concierge_question';`,
    );
    this.addSql(`drop table if exists "analytics_concierge_daily";`);
    this.addSql(`drop table if exists "analytics_window_reach";`);
    this.addSql(`drop table if exists "analytics_window_builds";`);
  }
}
