import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { User } from '../workspaces/user.entity.ts';

/**
 * A signed-in browser session (dashboard on the platform host, sign-in on the auth host). The cookie holds a
 * random 256-bit token; only its SHA-256 is stored, so a database leak yields no usable session.
 */
export const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: idProperty('session'),
    tokenHash: p.string().length(64).unique(),
    user: () => p.manyToOne(User).ref().deleteRule('cascade'),
    /** Synchronizer token every form of this session must echo (CSRF protection). */
    csrfToken: p.string().length(64),
    /** Which host issued it: `platform` (dashboard) or `auth` (authorization server sign-in). */
    host: p.string().length(16),
    currentWorkspaceId: p.string().length(40).nullable(),
    createdAt: createdAtProperty(),
    lastSeenAt: p.datetime().columnType('timestamptz'),
    expiresAt: p.datetime().columnType('timestamptz').index(),
    userAgent: p.string().length(300).nullable(),
    ip: p.string().length(64).nullable(),
  },
  indexes: [{ properties: ['user'] }],
});
export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
