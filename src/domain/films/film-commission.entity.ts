import { defineEntity, p } from '@mikro-orm/core';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

/**
 * Film stages. The film workflow moves a commission through
 *   scripting → storyboarding → awaiting_storyboard_approval → rendering → awaiting_final_approval → completed
 * with `revise` looping back from either approval gate (storyboard revisions re-run script and storyboard;
 * final revisions re-render), and `cancelled` / `failed` as the other ends.
 */
export const FILM_STATUSES = [
  'scripting',
  'storyboarding',
  'awaiting_storyboard_approval',
  'rendering',
  'awaiting_final_approval',
  'completed',
  'cancelled',
  'failed',
] as const;
export type FilmStatus = (typeof FILM_STATUSES)[number];

export interface FilmScene {
  index: number;
  seconds: number;
  visual: string;
  voiceover: string;
  onScreenText: string;
}

export interface FilmStoryboardFrame {
  scene: number;
  caption: string;
  key: string;
  url: string;
}

export interface FilmOutput {
  key: string;
  url: string;
  mimeType: string;
  bytes: number;
  durationSeconds: number;
  width: number;
  height: number;
}

export interface FilmRevision {
  stage: 'storyboard' | 'final';
  notes: string;
  at: string;
  by: string;
}

export const FilmCommissionSchema = defineEntity({
  name: 'FilmCommission',
  tableName: 'film_commissions',
  properties: {
    id: idProperty('filmCommission'),
    workspace: () => p.manyToOne(Workspace).ref(),
    campaign: () => p.manyToOne(Campaign).ref().nullable(),
    title: p.string().length(200),
    brief: p.text(),
    aspect: p.string().length(8),
    durationSeconds: p.integer(),
    status: p.enum(FILM_STATUSES).nativeEnumName('film_status').default('scripting'),
    /** 0 for the first cut; +1 per revision. */
    revision: p.integer().default(0),
    revisions: p.json<FilmRevision[]>().default('[]'),
    script: p.json<{ logline: string; scenes: FilmScene[] }>().nullable(),
    storyboard: p.json<FilmStoryboardFrame[]>().nullable(),
    output: p.json<FilmOutput>().nullable(),
    /** The job (Temporal workflow) that runs the commission. */
    jobId: p.string().length(40).nullable(),
    createdBy: p.string().length(200),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['workspace', 'createdAt', 'id'] }],
});
export class FilmCommission extends FilmCommissionSchema.class {}
FilmCommissionSchema.setClass(FilmCommission);
