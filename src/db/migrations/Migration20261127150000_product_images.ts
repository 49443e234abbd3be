import { Migration } from '@mikro-orm/migrations';

/**
 * Products keep copies of their own images (`stored_images`, made at import through the SSRF guard) and the
 * reasons an image URL could not be copied (`image_failures`).
 */
export class Migration20261127150000_product_images extends Migration {
  override up(): void | Promise<void> {
    this.addSql(
      `alter table "products" add column "stored_images" jsonb not null default '[]', add column "image_failures" jsonb not null default '[]';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "products" drop column "stored_images", drop column "image_failures";`);
  }
}
