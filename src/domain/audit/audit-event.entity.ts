import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';

export const AUDIT_OUTCOMES = ['success', 'denied', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * One line of the append-only audit log. The workspace is a plain column (no foreign key) so the record of
 * what happened outlives the workspace it happened in. A database trigger rejects updates and deletes.
 */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: {
    id: idProperty('auditEvent'),
    workspaceId: p.string().length(40).nullable(),
    /** `user:<id>`, `key:<id>`, `client:<id>/user:<id>`, `operator`, `workflow:<id>`, `anonymous`. */
    actor: p.string().length(200),
    /** Dotted verb, e.g. `session.sign_in`, `api_key.create`, `oauth.grant`, `mcp.manage_campaigns.publish`. */
    action: p.string().length(120),
    targetType: p.string().length(60).nullable(),
    targetId: p.string().length(200).nullable(),
    outcome: p.enum(AUDIT_OUTCOMES).nativeEnumName('audit_outcome'),
    /** Facts safe to show to the workspace's admins; never secrets. */
    details: p.json<Record<string, unknown>>().default('{}'),
    ip: p.string().length(64).nullable(),
    requestId: p.string().length(128).nullable(),
    createdAt: createdAtProperty(),
  },
  // The audit log page filters one workspace's rows by actor, action or outcome and pages by time: each filter
  // has an index that starts with the workspace and ends with the time, so a filtered page is an index range.
  indexes: [
    { properties: ['workspaceId', 'createdAt'] },
    { properties: ['actor', 'createdAt'] },
    { properties: ['workspaceId', 'actor', 'createdAt'] },
    { properties: ['workspaceId', 'action', 'createdAt'] },
    { properties: ['workspaceId', 'outcome', 'createdAt'] },
  ],
  triggers: [
    {
      name: 'audit_events_append_only',
      timing: 'before',
      events: ['update', 'delete'],
      forEach: 'row',
      body: "raise exception 'audit_events is append-only';",
    },
  ],
});
export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);
