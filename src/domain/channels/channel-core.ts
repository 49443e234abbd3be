/**
 * What both the API and the worker build from configuration to reach the networks: the adapters and the
 * access layer over the connected accounts' sealed credentials. The API adds the account and post services on
 * top (`container.ts`); the worker's activities use these directly (`worker.ts`).
 */
import type { Config } from '../../config.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createChannelAdapters, type ChannelAdapters } from './adapters.ts';
import { createChannelAccess, type ChannelAccess } from './channel-access.ts';

export interface ChannelCore {
  adapters: ChannelAdapters;
  access: ChannelAccess;
}

export function createChannelCore(deps: {
  config: Pick<Config, 'channels' | 'secrets'>;
  /** The guarded fetch for the networks' APIs (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
  audit: AuditService;
}): ChannelCore {
  const adapters = createChannelAdapters({
    blueskyServiceUrl: deps.config.channels.blueskyServiceUrl,
    fetch: deps.fetch,
  });
  const access = createChannelAccess({
    adapters,
    audit: deps.audit,
    credentialKeys: deps.config.secrets.credentialKeys,
    refreshAheadSeconds: deps.config.channels.tokenRefreshAheadSeconds,
  });
  return { adapters, access };
}
