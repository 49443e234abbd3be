import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { User } from './user.entity.ts';

/**
 * A one-time password reset an operator issued (`campaignctl user:reset-password`). The link carries a random
 * 256-bit token; only its SHA-256 is stored. Used once, before it expires; issuing a new one cancels the older.
 */
export const PasswordResetSchema = defineEntity({
  name: 'PasswordReset',
  tableName: 'password_resets',
  properties: {
    id: idProperty('passwordReset'),
    user: () => p.manyToOne(User).ref().deleteRule('cascade'),
    tokenHash: p.string().length(64).unique(),
    createdAt: createdAtProperty(),
    expiresAt: p.datetime().columnType('timestamptz'),
    usedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['user'] }],
});
export class PasswordReset extends PasswordResetSchema.class {}
PasswordResetSchema.setClass(PasswordReset);
