import { Migration } from '@mikro-orm/migrations';

/**
 * Window builds gain a campaign slice (the union of the campaign's variants, their sketches and sums), so a
 * long window's campaign list ranks one row per campaign and merges one sketch per shown campaign instead of
 * every variant's. Existing builds have no campaign rows: they are dropped, readers use the daily rows
 * meanwhile, and the next rollup pass rebuilds them.
 */
export class Migration20261128060000_window_build_campaign_slice extends Migration {
  override up(): void | Promise<void> {
    this.addSql(`alter table "analytics_window_reach" drop constraint "analytics_window_reach_slice_check";`);
    this.addSql(
      `alter table "analytics_window_reach" add constraint "analytics_window_reach_slice_check"
         check ("slice" in ('workspace', 'campaign', 'variant', 'zone'));`,
    );
    this.addSql(`delete from "analytics_window_reach";`);
    this.addSql(`delete from "analytics_window_builds";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "analytics_window_reach" where "slice" = 'campaign';`);
    this.addSql(`alter table "analytics_window_reach" drop constraint "analytics_window_reach_slice_check";`);
    this.addSql(
      `alter table "analytics_window_reach" add constraint "analytics_window_reach_slice_check"
         check ("slice" in ('workspace', 'variant', 'zone'));`,
    );
  }
}
