import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { ROLES } from './roles.ts';
import { User } from './user.entity.ts';
import { Workspace } from './workspace.entity.ts';

/**
 * A workspace API key (the headless route to the tool server, sent as `x-api-key`).
 *
 * The secret is shown once at creation; only its SHA-256 digest is stored. The key carries its own role,
 * never higher than its creator's role at creation time.
 */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: idProperty('apiKey'),
    workspace: () => p.manyToOne(Workspace).ref().deleteRule('cascade'),
    createdBy: () => p.manyToOne(User).ref().nullable().deleteRule('set null'),
    name: p.string().length(100),
    /** The non-secret start of the key, shown in lists so people can tell keys apart. */
    prefix: p.string().length(24),
    /** Hex SHA-256 of the whole key. Keys are 256-bit random, so a fast hash is the right tool here. */
    secretHash: p.string().length(64).unique().hidden(),
    role: p.enum(ROLES).nativeEnumName('workspace_role'),
    createdAt: createdAtProperty(),
    lastUsedAt: p.datetime().columnType('timestamptz').nullable(),
    disabledAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [{ properties: ['workspace', 'createdAt'] }],
});
export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
