/**
 * Server-side sessions for the dashboard. The browser holds a random 256-bit token in an HttpOnly cookie; the
 * database holds its SHA-256, the user, a CSRF token and an expiry. Signing out deletes the row.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type User } from '../workspaces/user.entity.ts';
import { Session } from './session.entity.ts';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;
/** `lastSeenAt` is refreshed at most this often, so reading a page does not write every time. */
const TOUCH_RESOLUTION_MS = 5 * 60 * 1000;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export function createSessionsService() {
  return {
    async create(
      em: EntityManager,
      user: User,
      meta: { userAgent?: string | null; ip?: string | null; workspaceId?: string | null },
    ): Promise<{ token: string; session: Session }> {
      const token = randomBytes(32).toString('base64url');
      const now = new Date();
      const session = em.create(Session, {
        tokenHash: hash(token),
        user,
        csrfToken: randomBytes(32).toString('base64url'),
        host: 'platform',
        currentWorkspaceId: meta.workspaceId ?? null,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
        userAgent: meta.userAgent?.slice(0, 300) ?? null,
        ip: meta.ip?.slice(0, 64) ?? null,
      });
      await em.flush();
      return { token, session };
    },

    /** The live session for a cookie token, with its user; null when unknown or expired. */
    async resolve(em: EntityManager, token: string | undefined): Promise<Session | null> {
      if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const session = await em.findOne(Session, { tokenHash: hash(token) }, { populate: ['user'] });
      if (!session) return null;
      const now = Date.now();
      if (session.expiresAt.getTime() <= now) {
        await em.nativeDelete(Session, { id: session.id });
        return null;
      }
      if (now - session.lastSeenAt.getTime() > TOUCH_RESOLUTION_MS) {
        session.lastSeenAt = new Date(now);
        await em.flush();
      }
      return session;
    },

    async setCurrentWorkspace(em: EntityManager, session: Session, workspaceId: string): Promise<void> {
      session.currentWorkspaceId = workspaceId;
      await em.flush();
    },

    async destroy(em: EntityManager, token: string | undefined): Promise<void> {
      if (token) await em.nativeDelete(Session, { tokenHash: hash(token) });
    },

    async prune(em: EntityManager): Promise<number> {
      return em.nativeDelete(Session, { expiresAt: { $lt: new Date() } });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
