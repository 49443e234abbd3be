/**
 * Resolves the profile of a tool-server request from its `?profile=` / `?call_code=` value.
 *
 * No value: `external_default`. A value is only ever treated as a secret call code; a profile *name* or an
 * unknown code selects the minimal discovery profile (spec rule B4), so profile names cannot be used to see
 * hidden tools. Call codes are looked up by the `CallCodeLookup` (issued and revoked by operators).
 *
 * Answers are cached briefly per (code, workspace) so a busy connection does not query the database on every
 * request; a revocation therefore takes effect within `cacheTtlMs` (default 15 s, documented in docs/agent-interface.md).
 */
import type { Principal } from '../auth/principal.ts';
import type { ProfileResolver } from '../http/routes/mcp.ts';
import { DEFAULT_PROFILE, DISCOVERY_PROFILE } from './profiles.ts';

/** Returns the profile a call code grants to this workspace, or null for an unknown/revoked/foreign code. */
export type CallCodeLookup = (code: string, workspaceId: string) => Promise<string | null>;

const MAX_CACHED = 5_000;

export function createProfileResolver(lookup?: CallCodeLookup, options: { cacheTtlMs?: number } = {}): ProfileResolver {
  const ttl = options.cacheTtlMs ?? 15_000;
  const cache = new Map<string, { profile: string; expires: number }>();
  return {
    async resolve(principal: Principal, code: string | undefined) {
      if (code === undefined || code === '') return DEFAULT_PROFILE;
      if (!lookup || code.length > 200) return DISCOVERY_PROFILE;
      const key = `${principal.workspaceId}\u0000${code}`;
      const hit = cache.get(key);
      const now = Date.now();
      if (hit && hit.expires > now) return hit.profile;
      const profile = (await lookup(code, principal.workspaceId)) ?? DISCOVERY_PROFILE;
      if (ttl > 0) {
        if (cache.size >= MAX_CACHED) cache.clear(); // bounded: guessing codes cannot grow memory
        cache.set(key, { profile, expires: now + ttl });
      }
      return profile;
    },
  };
}
