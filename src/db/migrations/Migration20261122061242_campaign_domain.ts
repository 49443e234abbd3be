import { Migration } from '@mikro-orm/migrations';

export class Migration20261122061242_campaign_domain extends Migration {
  override name = 'Migration20261122061242_campaign_domain';

  override up(): void | Promise<void> {
    this.addSql(`create type "surface_kind" as enum ('brand_page', 'email', 'social');`);
    this.addSql(`create type "product_origin" as enum ('manual', 'url_import', 'csv_import');`);
    this.addSql(`create type "campaign_status" as enum ('draft', 'generating', 'ready', 'published', 'archived');`);
    this.addSql(`create type "variant_status" as enum ('active', 'paused');`);
    this.addSql(`create type "zone_kind" as enum ('hero', 'banner', 'card', 'inline', 'email_block', 'post');`);
    this.addSql(`create type "deployment_status" as enum ('active', 'paused', 'ended');`);
    this.addSql(
      `create table "call_codes" ("id" varchar(40) not null, "code_hash" varchar(64) not null, "prefix" varchar(16) not null, "profile" varchar(60) not null, "workspace_id" varchar(40) null, "note" varchar(300) null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "call_codes" add constraint "call_codes_code_hash_unique" unique ("code_hash");`);

    this.addSql(
      `create table "surfaces" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "name" varchar(120) not null, "kind" "surface_kind" not null, "path" varchar(200) null, "channel" varchar(40) null, "description" varchar(1000) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "surfaces_workspace_id_created_at_id_index" on "surfaces" ("workspace_id", "created_at", "id");`,
    );
    this.addSql(
      `alter table "surfaces" add constraint "surfaces_workspace_id_path_unique" unique ("workspace_id", "path");`,
    );

    this.addSql(
      `create table "site_publications" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "version" int not null, "snapshot" jsonb not null, "reasons" text[] not null default '{}', "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "site_publications" add constraint "site_publications_workspace_id_version_unique" unique ("workspace_id", "version");`,
    );

    this.addSql(
      `create table "products" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "title" varchar(300) not null, "description" text null, "price_minor" int null, "currency" varchar(3) null, "images" jsonb not null default '[]', "url" varchar(2048) null, "brand" varchar(200) null, "sku" varchar(100) null, "attributes" jsonb not null default '{}', "origin" "product_origin" not null default 'manual', "source_url" varchar(2048) null, "untrusted" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "products_workspace_id_created_at_id_index" on "products" ("workspace_id", "created_at", "id");`,
    );

    this.addSql(
      `create table "campaigns" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "name" varchar(200) not null, "objective" text null, "status" "campaign_status" not null default 'draft', "status_before_generation" "campaign_status" null, "channels" text[] not null default '{}', "brief" jsonb null, "starts_at" timestamptz null, "ends_at" timestamptz null, "slug" varchar(80) not null, "published_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "campaigns_workspace_id_created_at_id_index" on "campaigns" ("workspace_id", "created_at", "id");`,
    );
    this.addSql(`create index "campaigns_workspace_id_status_index" on "campaigns" ("workspace_id", "status");`);
    this.addSql(
      `alter table "campaigns" add constraint "campaigns_workspace_id_slug_unique" unique ("workspace_id", "slug");`,
    );

    this.addSql(
      `create table "variants" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "campaign_id" varchar(40) not null, "name" varchar(100) not null, "headline" varchar(200) not null, "body" text not null, "call_to_action" varchar(60) not null, "cta_url" varchar(2048) null, "image_refs" jsonb not null default '[]', "channel_fields" jsonb not null default '{}', "status" "variant_status" not null default 'active', "weight" int not null default 50, "is_control" boolean not null default false, "source" varchar(20) not null default 'manual', "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "variants_workspace_id_campaign_id_created_at_index" on "variants" ("workspace_id", "campaign_id", "created_at");`,
    );

    this.addSql(
      `create table "variant_versions" ("id" varchar(40) not null, "variant_id" varchar(40) not null, "version" int not null, "snapshot" jsonb not null, "changed_by" varchar(200) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "variant_versions" add constraint "variant_versions_variant_id_version_unique" unique ("variant_id", "version");`,
    );

    this.addSql(
      `create table "campaign_products" ("campaign_id" varchar(40) not null, "product_id" varchar(40) not null, primary key ("campaign_id", "product_id"));`,
    );

    this.addSql(
      `create table "brands" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "brandbook" jsonb not null, "profile" jsonb not null, "voice" jsonb not null, "concierge" jsonb not null, "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "brands" add constraint "brands_workspace_id_unique" unique ("workspace_id");`);

    this.addSql(
      `create table "zones" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "surface_id" varchar(40) not null, "name" varchar(120) not null, "key" varchar(60) not null, "kind" "zone_kind" not null, "constraints" jsonb not null default '{}', "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "zones_workspace_id_surface_id_created_at_index" on "zones" ("workspace_id", "surface_id", "created_at");`,
    );
    this.addSql(`alter table "zones" add constraint "zones_surface_id_key_unique" unique ("surface_id", "key");`);

    this.addSql(
      `create table "deployments" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "campaign_id" varchar(40) not null, "surface_id" varchar(40) not null, "zone_id" varchar(40) not null, "status" "deployment_status" not null default 'active', "priority" int not null default 0, "starts_at" timestamptz null, "ends_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "deployments_workspace_id_campaign_id_created_at_index" on "deployments" ("workspace_id", "campaign_id", "created_at");`,
    );
    this.addSql(
      `create index "deployments_workspace_id_zone_id_status_index" on "deployments" ("workspace_id", "zone_id", "status");`,
    );

    this.addSql(`alter table "users" add "is_operator" boolean not null default false;`);

    this.addSql(
      `alter table "surfaces" add constraint "surfaces_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "site_publications" add constraint "site_publications_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "products" add constraint "products_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "campaigns" add constraint "campaigns_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "variants" add constraint "variants_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "variants" add constraint "variants_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id");`,
    );

    this.addSql(
      `alter table "variant_versions" add constraint "variant_versions_variant_id_foreign" foreign key ("variant_id") references "variants" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "campaign_products" add constraint "campaign_products_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "campaign_products" add constraint "campaign_products_product_id_foreign" foreign key ("product_id") references "products" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "brands" add constraint "brands_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "zones" add constraint "zones_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "zones" add constraint "zones_surface_id_foreign" foreign key ("surface_id") references "surfaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "deployments" add constraint "deployments_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "deployments" add constraint "deployments_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id");`,
    );
    this.addSql(
      `alter table "deployments" add constraint "deployments_surface_id_foreign" foreign key ("surface_id") references "surfaces" ("id");`,
    );
    this.addSql(
      `alter table "deployments" add constraint "deployments_zone_id_foreign" foreign key ("zone_id") references "zones" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "zones" drop constraint "zones_surface_id_foreign";`);
    this.addSql(`alter table "deployments" drop constraint "deployments_surface_id_foreign";`);
    this.addSql(`alter table "campaign_products" drop constraint "campaign_products_product_id_foreign";`);
    this.addSql(`alter table "variants" drop constraint "variants_campaign_id_foreign";`);
    this.addSql(`alter table "campaign_products" drop constraint "campaign_products_campaign_id_foreign";`);
    this.addSql(`alter table "deployments" drop constraint "deployments_campaign_id_foreign";`);
    this.addSql(`alter table "variant_versions" drop constraint "variant_versions_variant_id_foreign";`);
    this.addSql(`alter table "deployments" drop constraint "deployments_zone_id_foreign";`);

    this.addSql(`drop table if exists "call_codes" cascade;`);
    this.addSql(`drop table if exists "surfaces" cascade;`);
    this.addSql(`drop table if exists "site_publications" cascade;`);
    this.addSql(`drop table if exists "products" cascade;`);
    this.addSql(`drop table if exists "campaigns" cascade;`);
    this.addSql(`drop table if exists "variants" cascade;`);
    this.addSql(`drop table if exists "variant_versions" cascade;`);
    this.addSql(`drop table if exists "campaign_products" cascade;`);
    this.addSql(`drop table if exists "brands" cascade;`);
    this.addSql(`drop table if exists "zones" cascade;`);
    this.addSql(`drop table if exists "deployments" cascade;`);

    this.addSql(`alter table "users" drop column "is_operator";`);

    this.addSql(`drop type "surface_kind";`);
    this.addSql(`drop type "product_origin";`);
    this.addSql(`drop type "campaign_status";`);
    this.addSql(`drop type "variant_status";`);
    this.addSql(`drop type "zone_kind";`);
    this.addSql(`drop type "deployment_status";`);
  }
}
