/**
 * Resolves the profile of a tool-server request from its `?profile=` / `?call_code=` value.
 *
 * No value: `external_default`. A value is only ever treated as a secret call code; a profile *name* or an
 * unknown code selects the minimal discovery profile (spec rule B4), so profile names cannot be used to see
 * hidden tools. Call codes are looked up by the `CallCodeLookup` (issued and revoked by operators).
 */
import type { Principal } from '../auth/principal.ts';
import type { ProfileResolver } from '../http/routes/mcp.ts';
import { DEFAULT_PROFILE, DISCOVERY_PROFILE } from './profiles.ts';

/** Returns the profile a call code grants to this workspace, or null for an unknown/revoked/foreign code. */
export type CallCodeLookup = (code: string, workspaceId: string) => Promise<string | null>;

export function createProfileResolver(lookup?: CallCodeLookup): ProfileResolver {
  return {
    async resolve(principal: Principal, code: string | undefined) {
      if (code === undefined || code === '') return DEFAULT_PROFILE;
      if (!lookup || code.length > 200) return DISCOVERY_PROFILE;
      return (await lookup(code, principal.workspaceId)) ?? DISCOVERY_PROFILE;
    },
  };
}
