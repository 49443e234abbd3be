import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { ROLES } from './roles.ts';
import { User } from './user.entity.ts';
import { Workspace } from './workspace.entity.ts';

/**
 * An invitation by link to join a workspace with a role. The link carries a random 256-bit token shown once to
 * the inviter; only its SHA-256 is stored, so the table alone cannot be turned into working links. It is usable
 * once, until it expires or an admin revokes it, and only by a person signed in with the invited email.
 */
export const InvitationSchema = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: idProperty('invitation'),
    workspace: () => p.manyToOne(Workspace).ref().deleteRule('cascade'),
    /** Stored lower-cased, as users' emails are. */
    email: p.string().length(320),
    role: p.enum(ROLES).nativeEnumName('workspace_role'),
    tokenHash: p.string().length(64).unique(),
    invitedBy: () => p.manyToOne(User).ref().deleteRule('cascade'),
    createdAt: createdAtProperty(),
    expiresAt: p.datetime().columnType('timestamptz'),
    acceptedAt: p.datetime().columnType('timestamptz').nullable(),
    acceptedBy: () => p.manyToOne(User).ref().nullable().deleteRule('set null'),
    revokedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['workspace', 'createdAt'] }],
});
export class Invitation extends InvitationSchema.class {}
InvitationSchema.setClass(Invitation);
