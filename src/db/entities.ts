/** Every entity schema, listed explicitly: no folder scanning, so the same list works from source and from dist. */
import {
  OAuthClientFlagSchema,
  OAuthGrantBindingSchema,
  OidcPayloadSchema,
  OidcSigningKeySchema,
  RateLimitStateSchema,
} from '../auth/oidc/oidc.entities.ts';
import { AuditEventSchema } from '../domain/audit/audit-event.entity.ts';
import { SessionSchema } from '../domain/sessions/session.entity.ts';
import { CreditLedgerEntrySchema } from '../domain/credits/credit-ledger-entry.entity.ts';
import { JobSchema, JobStepSchema } from '../domain/jobs/job.entity.ts';
import { ApiKeySchema } from '../domain/workspaces/api-key.entity.ts';
import { MembershipSchema } from '../domain/workspaces/membership.entity.ts';
import { UserSchema } from '../domain/workspaces/user.entity.ts';
import { WorkspaceSchema } from '../domain/workspaces/workspace.entity.ts';

export const ENTITY_SCHEMAS = [
  UserSchema,
  WorkspaceSchema,
  MembershipSchema,
  ApiKeySchema,
  CreditLedgerEntrySchema,
  JobSchema,
  JobStepSchema,
  SessionSchema,
  AuditEventSchema,
  OidcPayloadSchema,
  OAuthGrantBindingSchema,
  OAuthClientFlagSchema,
  OidcSigningKeySchema,
  RateLimitStateSchema,
];
