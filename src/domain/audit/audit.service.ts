/**
 * The append-only audit log: who did what, in which workspace, to what, with what outcome. Rows are written
 * with the caller's EntityManager, so an action and its audit line can commit in the same transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../shared/ids.ts';
import { AuditEvent, type AuditOutcome } from './audit-event.entity.ts';

export interface AuditRecord {
  workspaceId: string | null;
  actor: string;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  outcome?: AuditOutcome;
  details?: Record<string, unknown>;
  ip?: string | null;
  requestId?: string | null;
}

export interface AuditView {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  details: Record<string, unknown>;
  ip: string | null;
}

export function createAuditService() {
  return {
    async record(em: EntityManager, entry: AuditRecord): Promise<void> {
      await em.insert(AuditEvent, {
        id: newId('auditEvent'),
        workspaceId: entry.workspaceId,
        actor: entry.actor,
        action: entry.action,
        targetType: entry.targetType ?? null,
        targetId: entry.targetId ?? null,
        outcome: entry.outcome ?? 'success',
        details: entry.details ?? {},
        ip: entry.ip ?? null,
        requestId: entry.requestId ?? null,
        createdAt: new Date(),
      });
    },

    /** Newest first, keyset-paginated by (createdAt, id). */
    async list(
      em: EntityManager,
      workspaceId: string,
      options: { limit?: number; before?: { createdAt: Date; id: string } } = {},
    ): Promise<AuditView[]> {
      const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
      const where = options.before
        ? {
            workspaceId,
            $or: [
              { createdAt: { $lt: options.before.createdAt } },
              { createdAt: options.before.createdAt, id: { $lt: options.before.id } },
            ],
          }
        : { workspaceId };
      const events = await em.find(AuditEvent, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
      return events.map((event) => ({
        id: event.id,
        at: event.createdAt.toISOString(),
        actor: event.actor,
        action: event.action,
        target: event.targetType ? `${event.targetType}:${event.targetId ?? ''}` : null,
        outcome: event.outcome,
        details: event.details,
        ip: event.ip ?? null,
      }));
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
