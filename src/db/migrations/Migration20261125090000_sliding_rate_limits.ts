import { Migration } from '@mikro-orm/migrations';

/**
 * The rate limiter becomes an exact sliding log (src/domain/rate-limits/rate-limiter.ts): the GCRA let a
 * token through 120 at once plus 2 per second after, about 240 in a minute. The old state (one theoretical
 * arrival time per key) says nothing about the last requests' times, so it is dropped, not converted: every
 * key starts with an empty log, as after a crash of the UNLOGGED table.
 */
export class Migration20261125090000_sliding_rate_limits extends Migration {
  override name = 'Migration20261125090000_sliding_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(`create unlogged table "rate_limit_log" (
      "key" varchar(300) not null,
      "stamps" timestamptz[] not null,
      "last_allowed" boolean not null,
      "checked_at" timestamptz not null,
      "expires_at" timestamptz not null,
      primary key ("key")
    );`);
    this.addSql(`drop table if exists "rate_limits" cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(
      `create unlogged table "rate_limits" ("key" varchar(300) not null, "tat" timestamptz not null, primary key ("key"));`,
    );
    this.addSql(`drop table if exists "rate_limit_log" cascade;`);
  }
}
