import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';

/** A person who signs in to the dashboard. Agents never create users: a human does, once. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: idProperty('user'),
    /** Stored lower-cased; unique. */
    email: p.string().length(320).unique(),
    name: p.string().length(200),
    /** argon2id PHC string; null for users who have not set a password yet. */
    passwordHash: p.text().nullable().lazy().hidden(),
    /** Platform operators (granted by the CLI only) see the operator pages, e.g. call codes. */
    isOperator: p.boolean().default(false),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
