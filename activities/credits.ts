/**
 * Credit postings made by workflows. Idempotency keys are derived from the job and the step inside the
 * workflow (`<jobId>:capture:<step>`, `<jobId>:release`), so an activity that runs twice posts once; every
 * posting that moves credits is also written to the workspace's audit log (once, on first posting).
 */
import { createAuditService } from '../src/domain/audit/audit.service.ts';
import { createCreditsService } from '../src/domain/credits/credits.service.ts';
import type { ActivityDeps } from './deps.ts';
import { translateErrors } from './support/activity-errors.ts';

export function createCreditActivities({ orm }: ActivityDeps) {
  const credits = createCreditsService();
  const audit = createAuditService();
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
        const { replayed } = await credits.capture(em, {
          workspaceId: input.workspaceId,
          amount: input.amount,
          idempotencyKey: `${input.jobId}:capture:${input.step}`,
          reference: input.jobId,
          description: `${input.step} completed`,
          actor: `workflow:${input.jobId}`,
        });
        if (!replayed) {
          await audit.record(em, {
            workspaceId: input.workspaceId,
            actor: input.actor,
            action: 'credits.capture',
            targetType: 'job',
            targetId: input.jobId,
            details: { step: input.step, credits: input.amount },
          });
        }
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
        if (!posted || posted.replayed) return 0;
        await audit.record(em, {
          workspaceId: input.workspaceId,
          actor: input.actor,
          action: 'credits.release',
          targetType: 'job',
          targetId: input.jobId,
          details: { credits: posted.entry.amount },
        });
        return posted.entry.amount;
      });
    },
  };
}
