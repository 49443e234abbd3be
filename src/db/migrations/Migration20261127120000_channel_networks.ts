import { Migration } from '@mikro-orm/migrations';

/**
 * The networks after Bluesky (Meta, Reddit, TikTok):
 *
 * - `channel_accounts.kind`: an account's kind within its network (Meta: a Facebook Page or an Instagram
 *   professional account), null where a network has one kind.
 * - `channel_posts.options`: the network's own fields of a post (a subreddit, title and flair; a TikTok privacy
 *   level; an Instagram media type).
 * - `channel_posts.publish_progress`: what a multi-step publish saved before its next call (a media container,
 *   a publish id), so an attempt after a crash resumes instead of posting twice.
 * - `channel_posts.allowance_claimed_at`: when a post being published took one of its account's daily places
 *   (Instagram's 50 a day), so two posts never take the last place at once.
 * - `analytics_channel_metrics_daily`: reach, video views and Reddit's score beside the existing measures.
 */
export class Migration20261127120000_channel_networks extends Migration {
  override up(): void | Promise<void> {
    this.addSql(`alter table "channel_accounts" add column "kind" varchar(30) null;`);
    this.addSql(`alter table "channel_posts" add column "options" jsonb not null default '{}';`);
    this.addSql(`alter table "channel_posts" add column "publish_progress" jsonb null;`);
    this.addSql(`alter table "channel_posts" add column "allowance_claimed_at" timestamptz null;`);
    this.addSql(
      `alter table "analytics_channel_metrics_daily" add column "reach" bigint null, add column "views" bigint null, add column "score" bigint null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "analytics_channel_metrics_daily" drop column "reach", drop column "views", drop column "score";`,
    );
    this.addSql(`alter table "channel_posts" drop column "allowance_claimed_at";`);
    this.addSql(`alter table "channel_posts" drop column "publish_progress";`);
    this.addSql(`alter table "channel_posts" drop column "options";`);
    this.addSql(`alter table "channel_accounts" drop column "kind";`);
  }
}
