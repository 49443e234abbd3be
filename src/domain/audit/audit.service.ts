/**
 * The append-only audit log: who did what, in which workspace, to what, with what outcome. Rows are written
 * with the caller's EntityManager, so an action and its audit line can commit in the same transaction.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
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

/** The `actor` filter value that means "every workflow" (`workflow:<job id>` actors). */
export const WORKFLOW_ACTORS = 'workflow:*';

/** What the audit log page filters by; every field optional. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  from?: Date;
  to?: Date;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface AuditView {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  targetType: string | null;
  targetId: string | null;
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

    /**
     * Newest first, keyset-paginated by (createdAt, id), narrowed by `filter`. Each filter is a plain condition
     * on an indexed column of the workspace's rows (see `audit-event.entity.ts`): `actor` exactly, or every
     * workflow (`workflow:*`); `action` exactly or as a group (`member` matches `member.add`, `member.remove`);
     * `outcome`; `from` (inclusive) and `to` (exclusive) on the time.
     */
    async list(
      em: EntityManager,
      workspaceId: string,
      options: { limit?: number; before?: { createdAt: Date; id: string }; filter?: AuditFilter } = {},
    ): Promise<AuditView[]> {
      const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
      const where: FilterQuery<AuditEvent> & Record<string, unknown> = { workspaceId };
      const and: FilterQuery<AuditEvent>[] = [];
      const filter = options.filter ?? {};
      if (filter.actor === WORKFLOW_ACTORS) where.actor = { $like: 'workflow:%' };
      else if (filter.actor) where.actor = filter.actor;
      if (filter.action) {
        and.push({ $or: [{ action: filter.action }, { action: { $like: `${escapeLike(filter.action)}.%` } }] });
      }
      if (filter.outcome) where.outcome = filter.outcome;
      if (filter.from || filter.to) {
        where.createdAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) };
      }
      if (options.before) {
        and.push({
          $or: [
            { createdAt: { $lt: options.before.createdAt } },
            { createdAt: options.before.createdAt, id: { $lt: options.before.id } },
          ],
        });
      }
      const events = await em.find(AuditEvent, and.length ? { ...where, $and: and } : where, {
        orderBy: { createdAt: 'desc', id: 'desc' },
        limit,
      });
      return events.map((event) => ({
        id: event.id,
        at: event.createdAt.toISOString(),
        actor: event.actor,
        action: event.action,
        target: event.targetType ? `${event.targetType}:${event.targetId ?? ''}` : null,
        targetType: event.targetType ?? null,
        targetId: event.targetId ?? null,
        outcome: event.outcome,
        details: event.details,
        ip: event.ip ?? null,
      }));
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
