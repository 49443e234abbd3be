import { Migration } from '@mikro-orm/migrations';

/**
 * People and account (issue 23): invitations by link and operator-issued password resets (both store only the
 * SHA-256 of their one-time token), and the indexes behind the audit log's filters (actor, action, outcome
 * within a workspace, by time) and the credit ledger's (kind within a workspace, by time).
 */
export class Migration20261127182527_people_and_account extends Migration {
  override name = 'Migration20261127182527_people_and_account';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "password_resets" ("id" varchar(40) not null, "user_id" varchar(40) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "password_resets" add constraint "password_resets_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(`create index "password_resets_user_id_index" on "password_resets" ("user_id");`);

    this.addSql(
      `create table "invitations" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "email" varchar(320) not null, "role" "workspace_role" not null, "token_hash" varchar(64) not null, "invited_by_id" varchar(40) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "accepted_by_id" varchar(40) null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "invitations" add constraint "invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(
      `create index "invitations_workspace_id_created_at_index" on "invitations" ("workspace_id", "created_at");`,
    );

    this.addSql(
      `create index "audit_events_workspace_id_actor_created_at_index" on "audit_events" ("workspace_id", "actor", "created_at");`,
    );
    this.addSql(
      `create index "audit_events_workspace_id_action_created_at_index" on "audit_events" ("workspace_id", "action", "created_at");`,
    );
    this.addSql(
      `create index "audit_events_workspace_id_outcome_created_at_index" on "audit_events" ("workspace_id", "outcome", "created_at");`,
    );

    this.addSql(
      `create index "credit_ledger_entries_workspace_id_kind_created_at_index" on "credit_ledger_entries" ("workspace_id", "kind", "created_at");`,
    );

    this.addSql(
      `alter table "password_resets" add constraint "password_resets_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "invitations" add constraint "invitations_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "invitations" add constraint "invitations_invited_by_id_foreign" foreign key ("invited_by_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "invitations" add constraint "invitations_accepted_by_id_foreign" foreign key ("accepted_by_id") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "password_resets" cascade;`);
    this.addSql(`drop table if exists "invitations" cascade;`);

    this.addSql(`drop index "audit_events_workspace_id_actor_created_at_index";`);
    this.addSql(`drop index "audit_events_workspace_id_action_created_at_index";`);
    this.addSql(`drop index "audit_events_workspace_id_outcome_created_at_index";`);

    this.addSql(`drop index "credit_ledger_entries_workspace_id_kind_created_at_index";`);
  }
}
