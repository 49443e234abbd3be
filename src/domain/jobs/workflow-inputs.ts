/**
 * The inputs of every workflow a job starts, in one types-only module: the workflows take them as their
 * parameter (workflows may import types only), the services build them, and the job launcher starts each
 * workflow by name with exactly its input. Changing a shape here changes what stored workflow histories
 * carry: keep fields additive (optional) so running and recorded executions still replay.
 */
import type { GenerationStep } from '../credits/price-list.ts';
import type { RenderRequest } from '../renders/render.types.ts';

/** What the job mechanism adds to every input: the job's row and its workspace. */
export interface JobIdentity {
  jobId: string;
  workspaceId: string;
}

export interface CampaignGenerationInput extends JobIdentity {
  campaignId: string;
  mode: 'start' | 'regenerate';
  fromStep: GenerationStep;
  /** The steps to run, in order (images left out when not wanted). */
  steps: GenerationStep[];
  /** Credits per step, exactly as quoted. */
  prices: Partial<Record<GenerationStep, number>>;
  intent: string;
  includeImages: boolean;
  variantCount: number;
  channels: string[];
  style: string | null;
  /** The earlier generation whose outputs a regeneration reuses for the steps before `fromStep`. */
  sourceJobId: string | null;
  actor: string;
}

/** One step of a generation, as the workflow hands it to the step activity. */
export type GenerationStepInput = Pick<
  CampaignGenerationInput,
  | 'jobId'
  | 'workspaceId'
  | 'campaignId'
  | 'intent'
  | 'includeImages'
  | 'variantCount'
  | 'channels'
  | 'style'
  | 'sourceJobId'
  | 'actor'
> & { step: GenerationStep };

/** What a step hands back into workflow history: ids and counts, never the (large) outputs themselves. */
export interface GenerationStepSummary {
  step: GenerationStep;
  variantIds?: string[];
  items?: number;
}

export interface RenderWorkflowInput extends JobIdentity {
  request: RenderRequest;
  credits: number;
  actor: string;
}

export interface FilmCommissionInput extends JobIdentity {
  commissionId: string;
  prices: { script: number; storyboard: number; render: number };
  actor: string;
}

export interface ProductImportInput extends JobIdentity {
  sourceUrl: string;
  actor: string;
}

/** One publishing run of a channel post (`workflows/channel-post.ts`). */
export interface ChannelPostInput extends JobIdentity {
  postId: string;
  network: string;
  /** What asked for this run: the answer an MCP task of it resolves to is that action's. */
  action: 'schedule' | 'publish_now' | 'retry';
  /** When to publish (ISO 8601); the run waits for it on a durable timer. */
  scheduledAt: string;
  /** Attempts against a network that does not answer, before the post fails. */
  publishAttempts: number;
  /** The first back-off between those attempts; it doubles each time, up to 10 minutes. */
  publishRetrySeconds: number;
  actor: string;
}

export interface SelftestWorkflowInput extends JobIdentity {
  steps: number;
  stepMs: number;
}

/** Every workflow a job starts, by its registered name, with its input. */
export interface JobWorkflowInputs {
  campaignGenerationWorkflow: CampaignGenerationInput;
  renderWorkflow: RenderWorkflowInput;
  filmCommissionWorkflow: FilmCommissionInput;
  productImportWorkflow: ProductImportInput;
  selftestWorkflow: SelftestWorkflowInput;
  channelPostWorkflow: ChannelPostInput;
}

export type JobWorkflow = keyof JobWorkflowInputs;

/** What a starter supplies: the job mechanism adds the job id and the workspace. */
export type JobWorkflowArgs<W extends JobWorkflow> = Omit<JobWorkflowInputs[W], keyof JobIdentity>;
