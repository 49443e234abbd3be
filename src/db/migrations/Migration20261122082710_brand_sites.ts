import { Migration } from '@mikro-orm/migrations';

export class Migration20261122082710_brand_sites extends Migration {
  override name = 'Migration20261122082710_brand_sites';

  override up(): void | Promise<void> {
    this.addSql(`create type "site_document_kind" as enum ('page', 'file');`);
    this.addSql(
      `create table "site_documents" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "version" int not null, "path" varchar(512) not null, "kind" "site_document_kind" not null, "content" jsonb not null, "etag" varchar(80) not null, "last_modified" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "site_documents" add constraint "site_documents_workspace_id_version_path_unique" unique ("workspace_id", "version", "path");`,
    );

    this.addSql(
      `create table "custom_domains" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "hostname" varchar(253) not null, "verification_token" varchar(64) not null, "verified_at" timestamptz null, "verified_by" varchar(8) null, "last_checked_at" timestamptz null, "last_error" varchar(500) null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "custom_domains" add constraint "custom_domains_hostname_unique" unique ("hostname");`);

    this.addSql(`alter table "site_publications" add "origin" varchar(300) null;`);

    this.addSql(
      `alter table "site_documents" add constraint "site_documents_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "custom_domains" add constraint "custom_domains_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    // Site events (impressions, clicks, conversions, concierge questions): append-only, partitioned by day so
    // rollups and retention touch one partition at a time. The id is a UUIDv7 and `occurred_at` is the time
    // inside it, so the primary key (which must include the partition key) is unique per event id and a
    // replayed event is a no-op (`on conflict do nothing`). The default partition is a safety net for events
    // outside the days prepared by `analytics_ensure_partitions` (run at boot and by the analytics schedule).
    this.addSql(`create table "analytics_events" (
      "event_id" uuid not null,
      "workspace_id" varchar(40) not null,
      "occurred_at" timestamptz not null,
      "received_at" timestamptz not null default now(),
      "type" varchar(24) not null check ("type" in ('impression', 'click', 'conversion', 'concierge_question')),
      "session_id" varchar(64) null,
      "campaign_id" varchar(40) null,
      "variant_id" varchar(40) null,
      "surface_id" varchar(40) null,
      "zone_id" varchar(40) null,
      "goal" varchar(64) null,
      "value" numeric(14, 2) null,
      "properties" jsonb not null default '{}',
      primary key ("event_id", "occurred_at")
    ) partition by range ("occurred_at");`);
    this.addSql(
      `create index "analytics_events_workspace_occurred_idx" on "analytics_events" ("workspace_id", "occurred_at");`,
    );
    this.addSql(`create table "analytics_events_default" partition of "analytics_events" default;`);
    this.addSql(`create function analytics_ensure_partitions(first_day date, last_day date) returns integer
      language plpgsql as $$
      declare
        day date := first_day;
        created integer := 0;
        part text;
      begin
        while day <= last_day loop
          part := 'analytics_events_p' || to_char(day, 'YYYYMMDD');
          if to_regclass(part) is null then
            execute format(
              'create table %I partition of analytics_events for values from (%L) to (%L)',
              part, day::timestamp at time zone 'UTC', (day + 1)::timestamp at time zone 'UTC');
            created := created + 1;
          end if;
          day := day + 1;
        end loop;
        return created;
      end $$;`);
    this.addSql(
      `select analytics_ensure_partitions((now() at time zone 'UTC')::date - 2, (now() at time zone 'UTC')::date + 14);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "analytics_events" cascade;`);
    this.addSql(`drop function if exists analytics_ensure_partitions(date, date);`);
    this.addSql(`drop table if exists "site_documents" cascade;`);
    this.addSql(`drop table if exists "custom_domains" cascade;`);

    this.addSql(`alter table "site_publications" drop column "origin";`);

    this.addSql(`drop type "site_document_kind";`);
  }
}
