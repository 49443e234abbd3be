import { Migration } from '@mikro-orm/migrations';

export class Migration20261122070645_durable_jobs extends Migration {
  override name = 'Migration20261122070645_durable_jobs';

  override up(): void | Promise<void> {
    this.addSql(
      `create type "film_status" as enum ('scripting', 'storyboarding', 'awaiting_storyboard_approval', 'rendering', 'awaiting_final_approval', 'completed', 'cancelled', 'failed');`,
    );
    this.addSql(
      `create table "credit_quotes" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "operation" varchar(80) not null, "arguments_hash" varchar(64) not null, "credits" int not null, "lines" jsonb not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "reference" varchar(200) null, "created_by" varchar(200) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "credit_quotes_workspace_id_created_at_index" on "credit_quotes" ("workspace_id", "created_at");`,
    );

    this.addSql(
      `create table "film_commissions" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "campaign_id" varchar(40) null, "title" varchar(200) not null, "brief" text not null, "aspect" varchar(8) not null, "duration_seconds" int not null, "status" "film_status" not null default 'scripting', "revision" int not null default 0, "revisions" jsonb not null default '[]', "script" jsonb null, "storyboard" jsonb null, "output" jsonb null, "job_id" varchar(40) null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "film_commissions_workspace_id_created_at_id_index" on "film_commissions" ("workspace_id", "created_at", "id");`,
    );

    // Jobs created before task handles existed get a random task id (gen_random_uuid is a CSPRNG), then the
    // column becomes required.
    this.addSql(`alter table "jobs" add "task_id" varchar(40) null;`);
    this.addSql(
      `update "jobs" set "task_id" = 'tsk_' || substr(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 1, 36) where "task_id" is null;`,
    );
    this.addSql(`alter table "jobs" alter column "task_id" set not null;`);
    this.addSql(`alter table "jobs" add constraint "jobs_task_id_unique" unique ("task_id");`);

    this.addSql(
      `alter table "credit_quotes" add constraint "credit_quotes_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "credit_quotes" add constraint "credit_quotes_credits_not_negative" check (credits >= 0);`,
    );

    this.addSql(
      `alter table "film_commissions" add constraint "film_commissions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "film_commissions" add constraint "film_commissions_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "credit_quotes" cascade;`);
    this.addSql(`drop table if exists "film_commissions" cascade;`);

    this.addSql(`alter table "jobs" drop constraint "jobs_task_id_unique";`);
    this.addSql(`alter table "jobs" drop column "task_id";`);

    this.addSql(`drop type "film_status";`);
  }
}
