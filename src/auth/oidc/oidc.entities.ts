/**
 * Tables behind the authorization server. The provider's own state (clients, grants, codes, tokens,
 * interactions, sessions) is one table of JSON payloads keyed by (model, id), read and written by the
 * adapter with plain SQL; the other tables are ours.
 */
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty } from '../../domain/shared/entity-properties.ts';
import { User } from '../../domain/workspaces/user.entity.ts';
import { Workspace } from '../../domain/workspaces/workspace.entity.ts';

export const OidcPayloadSchema = defineEntity({
  name: 'OidcPayload',
  tableName: 'oidc_payloads',
  properties: {
    model: p.string().length(40).primary(),
    id: p.string().length(255).primary(),
    payload: p.json<Record<string, unknown>>(),
    grantId: p.string().length(255).nullable().index(),
    userCode: p.string().length(255).nullable(),
    uid: p.string().length(255).nullable().index(),
    expiresAt: p.datetime().columnType('timestamptz').nullable().index(),
    consumedAt: p.datetime().columnType('timestamptz').nullable(),
  },
});
export class OidcPayload extends OidcPayloadSchema.class {}
OidcPayloadSchema.setClass(OidcPayload);

/**
 * Binds an OAuth grant to the one workspace the person picked on the consent page. Every token of the grant
 * acts in that workspace only. This row is also the "connected app" the dashboard lists and revokes.
 */
export const OAuthGrantBindingSchema = defineEntity({
  name: 'OAuthGrantBinding',
  tableName: 'oauth_grant_bindings',
  properties: {
    grantId: p.string().length(255).primary(),
    workspace: () => p.manyToOne(Workspace).ref().deleteRule('cascade'),
    user: () => p.manyToOne(User).ref().deleteRule('cascade'),
    clientId: p.string().length(2048),
    clientName: p.string().length(200).nullable(),
    scopes: p.array().default([]),
    createdAt: createdAtProperty(),
    lastUsedAt: p.datetime().columnType('timestamptz').nullable(),
    revokedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['workspace', 'createdAt'] }],
});
export class OAuthGrantBinding extends OAuthGrantBindingSchema.class {}
OAuthGrantBindingSchema.setClass(OAuthGrantBinding);

/** Operator flags on OAuth clients. `internal` unlocks deprecated read actions (spec rule C1). */
export const OAuthClientFlagSchema = defineEntity({
  name: 'OAuthClientFlag',
  tableName: 'oauth_client_flags',
  properties: {
    clientId: p.string().length(2048).primary(),
    internal: p.boolean().default(false),
    note: p.string().length(500).nullable(),
    updatedAt: createdAtProperty(),
  },
});
export class OAuthClientFlag extends OAuthClientFlagSchema.class {}
OAuthClientFlagSchema.setClass(OAuthClientFlag);

/**
 * The authorization server's signing keys. Private keys are stored encrypted (AES-256-GCM with a key derived
 * from the cookie secrets). The newest active key signs; retired keys are still published until they expire.
 */
export const OidcSigningKeySchema = defineEntity({
  name: 'OidcSigningKey',
  tableName: 'oidc_signing_keys',
  properties: {
    kid: p.string().length(64).primary(),
    encryptedJwk: p.text(),
    createdAt: createdAtProperty(),
    retiredAt: p.datetime().columnType('timestamptz').nullable(),
  },
});
export class OidcSigningKey extends OidcSigningKeySchema.class {}
OidcSigningKeySchema.setClass(OidcSigningKey);
