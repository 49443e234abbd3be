import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

/**
 * A custom domain a workspace admin added for its brand site. It serves the brand site only once verified,
 * by a DNS TXT record or an HTTP token file holding `verificationToken`; until then the host is unknown (404),
 * so nobody can point a name they do not control at somebody else's brand.
 */
export const CustomDomainSchema = defineEntity({
  name: 'CustomDomain',
  tableName: 'custom_domains',
  properties: {
    id: idProperty('customDomain'),
    workspace: () => p.manyToOne(Workspace).ref().deleteRule('cascade'),
    /** Lower-case host name, no port, no trailing dot. Unique across workspaces. */
    hostname: p.string().length(253).unique(),
    /** Public proof value (not a secret): published in DNS or at the HTTP token path by the domain's owner. */
    verificationToken: p.string().length(64),
    verifiedAt: p.datetime().columnType('timestamptz').nullable(),
    verifiedBy: p.string().length(8).nullable(),
    lastCheckedAt: p.datetime().columnType('timestamptz').nullable(),
    lastError: p.string().length(500).nullable(),
    createdAt: createdAtProperty(),
  },
});
export class CustomDomain extends CustomDomainSchema.class {}
CustomDomainSchema.setClass(CustomDomain);
