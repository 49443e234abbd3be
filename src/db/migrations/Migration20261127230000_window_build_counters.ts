import { Migration } from '@mikro-orm/migrations';

/**
 * Window builds carry the counters of their closed days too (per variant and per zone), so a long window's
 * list sections read a few hundred build rows plus today's instead of summing every daily row of the window.
 * Existing builds have no counters: they are dropped, readers use the daily rows meanwhile, and the next
 * rollup pass rebuilds them.
 */
export class Migration20261127230000_window_build_counters extends Migration {
  override up(): void | Promise<void> {
    this.addSql(
      `alter table "analytics_window_reach"
         add column "impressions" bigint not null default 0,
         add column "unattributed_impressions" bigint not null default 0,
         add column "clicks" bigint not null default 0,
         add column "conversions" bigint not null default 0,
         add column "conversion_value" numeric(18, 2) not null default 0,
         add column "concierge_questions" bigint not null default 0,
         add column "converted_sessions" bigint not null default 0,
         add column "converted_value" numeric(18, 2) not null default 0;`,
    );
    this.addSql(`delete from "analytics_window_reach";`);
    this.addSql(`delete from "analytics_window_builds";`);
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "analytics_window_reach" drop column "impressions", drop column "unattributed_impressions",
         drop column "clicks", drop column "conversions", drop column "conversion_value",
         drop column "concierge_questions", drop column "converted_sessions", drop column "converted_value";`,
    );
  }
}
