import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { Surface, Zone } from '../surfaces/surface.entity.ts';
import { Campaign } from './campaign.entity.ts';

export const DEPLOYMENT_STATUSES = ['active', 'paused', 'ended'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** A published campaign placed in a zone of a surface. The brand site fills the zone from active ones. */
export const DeploymentSchema = defineEntity({
  name: 'Deployment',
  tableName: 'deployments',
  properties: {
    id: idProperty('deployment'),
    workspace: () => p.manyToOne(Workspace).ref(),
    campaign: () => p.manyToOne(Campaign).ref(),
    surface: () => p.manyToOne(Surface).ref(),
    zone: () => p.manyToOne(Zone).ref(),
    status: p.enum(DEPLOYMENT_STATUSES).nativeEnumName('deployment_status').default('active'),
    /** Higher wins when several active deployments share a zone. */
    priority: p.integer().default(0),
    startsAt: p.datetime().columnType('timestamptz').nullable(),
    endsAt: p.datetime().columnType('timestamptz').nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['workspace', 'campaign', 'createdAt'] }, { properties: ['workspace', 'zone', 'status'] }],
});
export class Deployment extends DeploymentSchema.class {}
DeploymentSchema.setClass(Deployment);
