/**
 * Credit postings made by workflows. Idempotency keys are derived from the job and the step inside the
 * workflow (`<jobId>:capture:<step>`, `<jobId>:release`), so an activity that runs twice posts once; every
 * posting that moves credits is also written to the workspace's audit log (once, on first posting).
 */
import { createAuditService } from '../src/domain/audit/audit.service.ts';
import { createCreditsService } from '../src/domain/credits/credits.service.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActivityDeps } from './deps.ts';
import { translateErrors } from './support/activity-errors.ts';

export function createCreditActivities({ orm, metrics }: ActivityDeps) {
  const credits = createCreditsService({ metrics });
  const audit = createAuditService();

  /**
   * Audits a posting once. A retried activity finds its posting already made (`replayed`) but cannot know
   * whether the first attempt got as far as the audit write, so a replay looks for the event by the posting's
   * idempotency key and writes it only when it is missing: no spend goes unaudited, none is audited twice.
   */
  async function auditPosting(
    em: EntityManager,
    replayed: boolean,
    entry: {
      workspaceId: string;
      actor: string;
      action: string;
      jobId: string;
      ledgerKey: string;
      details: Record<string, unknown>;
    },
  ): Promise<void> {
    if (replayed) {
      const found = await em
        .getConnection()
        .execute<unknown[]>(
          `select 1 from audit_events where workspace_id = ? and action = ? and target_id = ? and details->>'ledgerKey' = ? limit 1`,
          [entry.workspaceId, entry.action, entry.jobId, entry.ledgerKey],
        );
      if (found.length > 0) return;
    }
    await audit.record(em, {
      workspaceId: entry.workspaceId,
      actor: entry.actor,
      action: entry.action,
      targetType: 'job',
      targetId: entry.jobId,
      details: { ...entry.details, ledgerKey: entry.ledgerKey },
    });
  }

  return {
    async captureJobCredits(input: {
      workspaceId: string;
      jobId: string;
      step: string;
      amount: number;
      actor: string;
    }): Promise<void> {
      await translateErrors(async () => {
        const em = orm.em.fork();
        const ledgerKey = `${input.jobId}:capture:${input.step}`;
        const { replayed } = await credits.capture(em, {
          workspaceId: input.workspaceId,
          amount: input.amount,
          idempotencyKey: ledgerKey,
          reference: input.jobId,
          description: `${input.step} completed`,
          actor: `workflow:${input.jobId}`,
        });
        await auditPosting(em, replayed, {
          workspaceId: input.workspaceId,
          actor: input.actor,
          action: 'credits.capture',
          jobId: input.jobId,
          ledgerKey,
          details: { step: input.step, credits: input.amount },
        });
      });
    },

    /** Returns everything still held for the job; a no-op when nothing is held. */
    async releaseJobCredits(input: { workspaceId: string; jobId: string; actor: string }): Promise<number> {
      return translateErrors(async () => {
        const em = orm.em.fork();
        const posted = await credits.releaseRemaining(em, {
          workspaceId: input.workspaceId,
          idempotencyKey: `${input.jobId}:release`,
          reference: input.jobId,
          description: 'unused credits returned',
          actor: `workflow:${input.jobId}`,
        });
        if (!posted) return 0;
        await auditPosting(em, posted.replayed, {
          workspaceId: input.workspaceId,
          actor: input.actor,
          action: 'credits.release',
          jobId: input.jobId,
          ledgerKey: `${input.jobId}:release`,
          details: { credits: posted.entry.amount },
        });
        return posted.replayed ? 0 : posted.entry.amount;
      });
    },
  };
}
