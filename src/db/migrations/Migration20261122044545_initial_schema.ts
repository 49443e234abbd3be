import { Migration } from '@mikro-orm/migrations';

export class Migration20261122044545_initial_schema extends Migration {
  override name = 'Migration20261122044545_initial_schema';

  override up(): void | Promise<void> {
    this.addSql(`create type "audit_outcome" as enum ('success', 'denied', 'failed');`);
    this.addSql(`create type "workspace_role" as enum ('owner', 'admin', 'editor', 'viewer');`);
    this.addSql(
      `create type "job_status" as enum ('queued', 'running', 'input_required', 'cancel_requested', 'succeeded', 'failed', 'cancelled');`,
    );
    this.addSql(
      `create type "credit_entry_kind" as enum ('grant', 'reserve', 'capture', 'release', 'spend', 'revoke');`,
    );
    this.addSql(`create type "credit_account" as enum ('external', 'available', 'held', 'spent');`);
    this.addSql(
      `create table "audit_events" ("id" varchar(40) not null, "workspace_id" varchar(40) null, "actor" varchar(200) not null, "action" varchar(120) not null, "target_type" varchar(60) null, "target_id" varchar(200) null, "outcome" "audit_outcome" not null, "details" jsonb not null default '{}', "ip" varchar(64) null, "request_id" varchar(128) null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "audit_events_workspace_id_created_at_index" on "audit_events" ("workspace_id", "created_at");`,
    );
    this.addSql(`create index "audit_events_actor_created_at_index" on "audit_events" ("actor", "created_at");`);

    this.addSql(
      `create table "oauth_client_flags" ("client_id" varchar(2048) not null, "internal" boolean not null default false, "note" varchar(500) null, "updated_at" timestamptz not null, primary key ("client_id"));`,
    );

    this.addSql(
      `create table "oidc_payloads" ("model" varchar(40) not null, "id" varchar(255) not null, "payload" jsonb not null, "grant_id" varchar(255) null, "user_code" varchar(255) null, "uid" varchar(255) null, "expires_at" timestamptz null, "consumed_at" timestamptz null, primary key ("model", "id"));`,
    );
    this.addSql(`create index "oidc_payloads_grant_id_index" on "oidc_payloads" ("grant_id");`);
    this.addSql(`create index "oidc_payloads_uid_index" on "oidc_payloads" ("uid");`);
    this.addSql(`create index "oidc_payloads_expires_at_index" on "oidc_payloads" ("expires_at");`);

    this.addSql(
      `create table "oidc_signing_keys" ("kid" varchar(64) not null, "encrypted_jwk" text not null, "created_at" timestamptz not null, "retired_at" timestamptz null, primary key ("kid"));`,
    );

    this.addSql(
      `create table "rate_limits" ("key" varchar(300) not null, "tat" timestamptz not null, primary key ("key"));`,
    );
    // Rate-limit state is disposable: skipping the WAL keeps the per-request limiter write off the fsync path.
    this.addSql(`alter table "rate_limits" set unlogged;`);

    this.addSql(
      `create table "users" ("id" varchar(40) not null, "email" varchar(320) not null, "name" varchar(200) not null, "password_hash" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "sessions" ("id" varchar(40) not null, "token_hash" varchar(64) not null, "user_id" varchar(40) not null, "csrf_token" varchar(64) not null, "host" varchar(16) not null, "current_workspace_id" varchar(40) null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "user_agent" varchar(300) null, "ip" varchar(64) null, primary key ("id"));`,
    );
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);

    this.addSql(
      `create table "workspaces" ("id" varchar(40) not null, "name" varchar(200) not null, "slug" varchar(63) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "workspaces" add constraint "workspaces_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "oauth_grant_bindings" ("grant_id" varchar(255) not null, "workspace_id" varchar(40) not null, "user_id" varchar(40) not null, "client_id" varchar(2048) not null, "client_name" varchar(200) null, "scopes" text[] not null default '{}', "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("grant_id"));`,
    );
    this.addSql(
      `create index "oauth_grant_bindings_workspace_id_created_at_index" on "oauth_grant_bindings" ("workspace_id", "created_at");`,
    );

    this.addSql(
      `create table "memberships" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "user_id" varchar(40) not null, "role" "workspace_role" not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);
    this.addSql(
      `alter table "memberships" add constraint "memberships_workspace_id_user_id_unique" unique ("workspace_id", "user_id");`,
    );

    this.addSql(
      `create table "jobs" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "kind" varchar(64) not null, "status" "job_status" not null default 'queued', "workflow_id" varchar(200) not null, "run_id" varchar(64) null, "subject_id" varchar(40) null, "input" jsonb not null default '{}', "progress" jsonb not null default '{"fraction":0}', "result" jsonb null, "error" jsonb null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null, "cancel_requested_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "jobs_workspace_id_created_at_index" on "jobs" ("workspace_id", "created_at");`);
    this.addSql(`create index "jobs_workspace_id_subject_id_index" on "jobs" ("workspace_id", "subject_id");`);
    this.addSql(`create index "jobs_workflow_id_index" on "jobs" ("workflow_id");`);
    this.addSql(`alter table "jobs" add constraint "jobs_workflow_id_run_id_unique" unique ("workflow_id", "run_id");`);

    this.addSql(
      `create table "job_steps" ("id" varchar(40) not null, "job_id" varchar(40) not null, "name" varchar(64) not null, "attempt" int not null, "output" jsonb null, "completed_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "job_steps" add constraint "job_steps_job_id_name_unique" unique ("job_id", "name");`);

    this.addSql(
      `create table "credit_ledger_entries" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "kind" "credit_entry_kind" not null, "from_account" "credit_account" not null, "to_account" "credit_account" not null, "amount" int not null, "idempotency_key" varchar(200) not null, "reference" varchar(200) null, "description" varchar(500) null, "actor" varchar(200) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "credit_ledger_entries" add constraint "credit_ledger_entries_idempotency_key_unique" unique ("idempotency_key");`,
    );
    this.addSql(
      `create index "credit_ledger_entries_workspace_id_created_at_index" on "credit_ledger_entries" ("workspace_id", "created_at");`,
    );
    this.addSql(
      `create index "credit_ledger_entries_workspace_id_reference_index" on "credit_ledger_entries" ("workspace_id", "reference");`,
    );

    this.addSql(
      `create table "api_keys" ("id" varchar(40) not null, "workspace_id" varchar(40) not null, "created_by_id" varchar(40) null, "name" varchar(100) not null, "prefix" varchar(24) not null, "secret_hash" varchar(64) not null, "role" "workspace_role" not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "disabled_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_secret_hash_unique" unique ("secret_hash");`);
    this.addSql(`create index "api_keys_workspace_id_created_at_index" on "api_keys" ("workspace_id", "created_at");`);

    this.addSql(
      `create or replace function "audit_events_audit_events_append_only_fn"() returns trigger as \$\$ begin raise exception 'audit_events is append-only'; end; \$\$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "audit_events_append_only" BEFORE UPDATE OR DELETE on "audit_events" for each ROW execute function "audit_events_audit_events_append_only_fn"();`,
    );

    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "oauth_grant_bindings" add constraint "oauth_grant_bindings_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_grant_bindings" add constraint "oauth_grant_bindings_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "memberships" add constraint "memberships_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "jobs" add constraint "jobs_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );

    this.addSql(
      `alter table "job_steps" add constraint "job_steps_job_id_foreign" foreign key ("job_id") references "jobs" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "credit_ledger_entries" add constraint "credit_ledger_entries_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id");`,
    );
    this.addSql(
      `alter table "credit_ledger_entries" add constraint "credit_ledger_entries_amount_positive" check (amount > 0);`,
    );
    this.addSql(
      `alter table "credit_ledger_entries" add constraint "credit_ledger_entries_accounts_differ" check (from_account <> to_account);`,
    );
    this.addSql(
      `create or replace function "credit_ledger_entries_credit_ledger_entries_append_only_fn"() returns trigger as \$\$ begin raise exception 'credit_ledger_entries is append-only'; end; \$\$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "credit_ledger_entries_append_only" BEFORE UPDATE OR DELETE on "credit_ledger_entries" for each ROW execute function "credit_ledger_entries_credit_ledger_entries_append_only_fn"();`,
    );

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_user_id_foreign";`);
    this.addSql(`alter table "oauth_grant_bindings" drop constraint "oauth_grant_bindings_user_id_foreign";`);
    this.addSql(`alter table "memberships" drop constraint "memberships_user_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_created_by_id_foreign";`);
    this.addSql(`alter table "oauth_grant_bindings" drop constraint "oauth_grant_bindings_workspace_id_foreign";`);
    this.addSql(`alter table "memberships" drop constraint "memberships_workspace_id_foreign";`);
    this.addSql(`alter table "jobs" drop constraint "jobs_workspace_id_foreign";`);
    this.addSql(`alter table "credit_ledger_entries" drop constraint "credit_ledger_entries_workspace_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_workspace_id_foreign";`);
    this.addSql(`alter table "job_steps" drop constraint "job_steps_job_id_foreign";`);

    this.addSql(`drop trigger if exists "audit_events_append_only" on "audit_events";`);
    this.addSql(`drop function if exists "audit_events_audit_events_append_only_fn"();`);
    this.addSql(`drop table if exists "audit_events" cascade;`);
    this.addSql(`drop table if exists "oauth_client_flags" cascade;`);
    this.addSql(`drop table if exists "oidc_payloads" cascade;`);
    this.addSql(`drop table if exists "oidc_signing_keys" cascade;`);
    this.addSql(`drop table if exists "rate_limits" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "workspaces" cascade;`);
    this.addSql(`drop table if exists "oauth_grant_bindings" cascade;`);
    this.addSql(`drop table if exists "memberships" cascade;`);
    this.addSql(`drop table if exists "jobs" cascade;`);
    this.addSql(`drop table if exists "job_steps" cascade;`);
    this.addSql(`drop trigger if exists "credit_ledger_entries_append_only" on "credit_ledger_entries";`);
    this.addSql(`drop function if exists "credit_ledger_entries_credit_ledger_entries_append_only_fn"();`);
    this.addSql(`drop table if exists "credit_ledger_entries" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);

    this.addSql(`drop type "audit_outcome";`);
    this.addSql(`drop type "workspace_role";`);
    this.addSql(`drop type "job_status";`);
    this.addSql(`drop type "credit_entry_kind";`);
    this.addSql(`drop type "credit_account";`);
  }
}
