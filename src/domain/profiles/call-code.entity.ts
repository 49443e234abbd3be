import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';

/**
 * A secret call code that selects a tool profile (`?profile=<code>` / `?call_code=<code>`). Issued and revoked
 * by operators, stored as SHA-256, optionally limited to one workspace. Codes select visibility only: the
 * principal's role decides what any tool may do.
 */
export const CallCodeSchema = defineEntity({
  name: 'CallCode',
  tableName: 'call_codes',
  properties: {
    id: idProperty('callCode'),
    codeHash: p.string().length(64).unique(),
    /** The non-secret start of the code, for operators' lists. */
    prefix: p.string().length(16),
    profile: p.string().length(60),
    /** When set, the code works only for principals of this workspace. */
    workspaceId: p.string().length(40).nullable(),
    note: p.string().length(300).nullable(),
    createdBy: p.string().length(200),
    createdAt: createdAtProperty(),
    revokedAt: p.datetime().columnType('timestamptz').nullable(),
  },
});
export class CallCode extends CallCodeSchema.class {}
CallCodeSchema.setClass(CallCode);
