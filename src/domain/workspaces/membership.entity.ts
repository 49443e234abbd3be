import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { ROLES } from './roles.ts';
import { User } from './user.entity.ts';
import { Workspace } from './workspace.entity.ts';

/** A person's role in one workspace. */
export const MembershipSchema = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    id: idProperty('membership'),
    workspace: () => p.manyToOne(Workspace).ref().deleteRule('cascade'),
    user: () => p.manyToOne(User).ref().deleteRule('cascade'),
    role: p.enum(ROLES).nativeEnumName('workspace_role'),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
  uniques: [{ properties: ['workspace', 'user'] }],
  indexes: [{ properties: ['user'] }],
});
export class Membership extends MembershipSchema.class {}
MembershipSchema.setClass(Membership);
