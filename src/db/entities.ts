/** Every entity schema, listed explicitly: no folder scanning, so the same list works from source and from dist. */
import {
  OAuthClientFlagSchema,
  OAuthGrantBindingSchema,
  OidcPayloadSchema,
  OidcSigningKeySchema,
} from '../auth/oidc/oidc.entities.ts';
import { RateLimitLogSchema } from '../domain/rate-limits/rate-limit-log.entity.ts';
import { AuditEventSchema } from '../domain/audit/audit-event.entity.ts';
import { SessionSchema } from '../domain/sessions/session.entity.ts';
import { BrandSchema } from '../domain/brand/brand.entity.ts';
import { CampaignSchema } from '../domain/campaigns/campaign.entity.ts';
import { DeploymentSchema } from '../domain/campaigns/deployment.entity.ts';
import { VariantSchema, VariantVersionSchema } from '../domain/campaigns/variant.entity.ts';
import { ProductSchema } from '../domain/products/product.entity.ts';
import { CallCodeSchema } from '../domain/profiles/call-code.entity.ts';
import { SiteDocumentSchema } from '../domain/publishing/site-document.entity.ts';
import { SitePublicationSchema } from '../domain/publishing/site-publication.entity.ts';
import { CustomDomainSchema } from '../domain/brand/custom-domain.entity.ts';
import { SurfaceSchema, ZoneSchema } from '../domain/surfaces/surface.entity.ts';
import { CreditLedgerEntrySchema } from '../domain/credits/credit-ledger-entry.entity.ts';
import { CreditQuoteSchema } from '../domain/credits/credit-quote.entity.ts';
import { FilmCommissionSchema } from '../domain/films/film-commission.entity.ts';
import { JobSchema, JobStepSchema } from '../domain/jobs/job.entity.ts';
import { ApiKeySchema } from '../domain/workspaces/api-key.entity.ts';
import { MembershipSchema } from '../domain/workspaces/membership.entity.ts';
import { UserSchema } from '../domain/workspaces/user.entity.ts';
import { WorkspaceSchema } from '../domain/workspaces/workspace.entity.ts';
import { InvitationSchema } from '../domain/workspaces/invitation.entity.ts';
import { PasswordResetSchema } from '../domain/workspaces/password-reset.entity.ts';
import { ChannelAccountSchema } from '../domain/channels/channel-account.entity.ts';
import { ChannelPostSchema } from '../domain/channels/channel-post.entity.ts';

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
  RateLimitLogSchema,
  ProductSchema,
  CampaignSchema,
  VariantSchema,
  VariantVersionSchema,
  SurfaceSchema,
  ZoneSchema,
  DeploymentSchema,
  BrandSchema,
  CallCodeSchema,
  SitePublicationSchema,
  SiteDocumentSchema,
  CustomDomainSchema,
  CreditQuoteSchema,
  FilmCommissionSchema,
  ChannelAccountSchema,
  ChannelPostSchema,
  InvitationSchema,
  PasswordResetSchema,
];
