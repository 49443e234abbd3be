/**
 * Campaign lifecycle.
 *
 *   draft ──generate──▶ generating ──done──▶ ready ──publish──▶ published
 *     ▲                     │ failed/cancelled   ▲                   │
 *     └─────────────────────┘                    └── first variant   ▼
 *                                                    (from draft)  archived ──restore──▶ ready
 *
 * Any non-generating state can be archived; an archived campaign comes back as `ready` (its deployments stay
 * ended). Generation only starts from draft or ready.
 */
import { ConflictError } from '../../errors.ts';

export const CAMPAIGN_STATUSES = ['draft', 'generating', 'ready', 'published', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

const TRANSITIONS: Record<CampaignStatus, readonly CampaignStatus[]> = {
  draft: ['generating', 'ready', 'archived'],
  generating: ['ready', 'draft', 'published'],
  ready: ['generating', 'published', 'archived'],
  published: ['ready', 'archived', 'generating'],
  archived: ['ready'],
};

export function canTransitionCampaign(from: CampaignStatus, to: CampaignStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertCampaignTransition(from: CampaignStatus, to: CampaignStatus, why: string): void {
  if (!canTransitionCampaign(from, to)) {
    throw new ConflictError(`Cannot ${why}: the campaign is ${from}`, { status: from, wanted: to });
  }
}

/** Content edits wait for a running generation to end, and an archived campaign must be restored first. */
export function assertEditable(campaign: { status: CampaignStatus }, what: string): void {
  if (campaign.status === 'generating') {
    throw new ConflictError(
      `Cannot ${what} while the campaign is generating; poll generation_status, or cancel the generation`,
    );
  }
  if (campaign.status === 'archived')
    throw new ConflictError(`Cannot ${what}: the campaign is archived; restore it first (update with status "ready")`);
}

/**
 * A schedule (of a campaign or a deployment) ends after it starts. The refusal names the field in its details
 * (`issues`, as a validation error does), so an agent and the console's form can point at the end date.
 */
export function checkSchedule(startsAt: Date | null | undefined, endsAt: Date | null | undefined): void {
  if (startsAt && endsAt && endsAt <= startsAt)
    throw new ConflictError('endsAt must be after startsAt', {
      issues: [{ field: 'endsAt', message: 'must be after startsAt' }],
    });
}
