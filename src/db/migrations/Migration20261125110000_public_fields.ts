import { Migration } from '@mikro-orm/migrations';

/**
 * A campaign's public summary: the text its brand-site page leads with. Until now the page led with the
 * objective, an internal note ("Launch the … to hikers in Scandinavia before winter"); the objective stays
 * internal and the site shows this field, or the active variant's copy when it is empty. Existing campaigns
 * start without one rather than with a copy of their objective, which is exactly what must not be published.
 *
 * Publications written before this carry `format` 1: their stored pages still lead with the objective, so the
 * API republishes those sites when it starts (`republishOutdatedSites`).
 */
export class Migration20261125110000_public_fields extends Migration {
  override name = 'Migration20261125110000_public_fields';

  override up(): void | Promise<void> {
    this.addSql(`alter table "campaigns" add column "public_summary" text null;`);
    this.addSql(`alter table "site_publications" add column "format" int not null default 1;`);
    this.addSql(`alter table "site_publications" alter column "format" drop default;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "site_publications" drop column "format";`);
    this.addSql(`alter table "campaigns" drop column "public_summary";`);
  }
}
