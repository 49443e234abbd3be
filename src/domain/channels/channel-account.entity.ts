import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { ACCOUNT_STATUSES } from './channel-status.ts';

/** What a network last said about the caller's remaining budget (its `RateLimit-*` headers). */
export interface ChannelQuota {
  /** The policy the figures belong to, e.g. `5000;w=3600` (points per window in seconds). */
  policy: string | null;
  limit: number;
  remaining: number;
  /** When the window resets. */
  resetAt: string;
  /** When the network said so. */
  observedAt: string;
}

/**
 * A social-network account connected to a workspace. A person connects it in the dashboard (agents can list
 * accounts but never connect one). Its credentials (an app password, access and refresh tokens) are sealed
 * at rest (`credentials.ts`), bound to this row, and never leave the platform: no tool, page or log shows them.
 */
export const ChannelAccountSchema = defineEntity({
  name: 'ChannelAccount',
  tableName: 'channel_accounts',
  properties: {
    id: idProperty('channelAccount'),
    workspace: () => p.manyToOne(Workspace).ref(),
    network: p.string().length(20),
    /** The network's stable id of the account (a Bluesky DID). */
    externalId: p.string().length(200),
    /** The account's public name on the network (a Bluesky handle, without `@`). */
    handle: p.string().length(253),
    displayName: p.string().length(200).nullable(),
    /** The account's kind within its network (Meta: `facebook_page` or `instagram`); null where there is one. */
    kind: p.string().length(30).nullable(),
    status: p.enum(ACCOUNT_STATUSES).nativeEnumName('channel_account_status').default('active'),
    /** Why the account needs a person (reconnect) or was disconnected; safe to show. */
    statusReason: p.text().nullable(),
    /** Sealed credentials (`v2.<kid>.…`); erased when the account is disconnected. */
    credentials: p.text().nullable(),
    /** When the current access token expires (refreshed ahead of it). */
    accessExpiresAt: p.datetime().columnType('timestamptz').nullable(),
    quota: p.json<ChannelQuota>().nullable(),
    /** The actor who connected (or last reconnected) the account, as in the audit log. */
    connectedBy: p.string().length(200),
    connectedAt: p.datetime().columnType('timestamptz'),
    /** The last call the network answered successfully. */
    lastSuccessAt: p.datetime().columnType('timestamptz').nullable(),
    disconnectedAt: p.datetime().columnType('timestamptz').nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['workspace', 'createdAt'] }],
  uniques: [{ properties: ['workspace', 'network', 'externalId'] }],
});
export class ChannelAccount extends ChannelAccountSchema.class {}
ChannelAccountSchema.setClass(ChannelAccount);
