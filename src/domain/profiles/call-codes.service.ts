/**
 * Call codes: secrets that select a tool profile. Operators issue and revoke them (CLI and operator pages);
 * only the SHA-256 is stored and the code is never echoed back by the tool server.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { NotFoundError } from '../../errors.ts';
import { WorkspaceId } from '../shared/schemas.ts';
import { parseInput } from '../shared/validate.ts';
import { CallCode } from './call-code.entity.ts';

const hash = (code: string) => createHash('sha256').update(code).digest('hex');

export interface CallCodeView {
  id: string;
  prefix: string;
  profile: string;
  workspaceId: string | null;
  note: string | null;
  createdAt: string;
  revokedAt: string | null;
}

const toView = (code: CallCode): CallCodeView => ({
  id: code.id,
  prefix: code.prefix,
  profile: code.profile,
  workspaceId: code.workspaceId ?? null,
  note: code.note ?? null,
  createdAt: code.createdAt.toISOString(),
  revokedAt: code.revokedAt?.toISOString() ?? null,
});

export function createCallCodesService(deps: { selectableProfiles: readonly string[] }) {
  const IssueSchema = z.object({
    profile: z.enum(deps.selectableProfiles as [string, ...string[]], {
      error: `must be one of ${deps.selectableProfiles.join(', ')}`,
    }),
    workspaceId: WorkspaceId.nullish(),
    note: z.string().trim().max(300).nullish(),
  });

  return {
    async issue(
      em: EntityManager,
      input: z.input<typeof IssueSchema>,
      createdBy: string,
    ): Promise<{ code: string; callCode: CallCodeView }> {
      const data = parseInput(IssueSchema, input, 'call code');
      const code = `cc_${randomBytes(18).toString('base64url')}`;
      const callCode = em.create(CallCode, {
        codeHash: hash(code),
        prefix: code.slice(0, 8),
        profile: data.profile,
        workspaceId: data.workspaceId ?? null,
        note: data.note ?? null,
        createdBy,
        revokedAt: null,
      });
      await em.flush();
      return { code, callCode: toView(callCode) };
    },

    async revoke(em: EntityManager, id: string): Promise<CallCodeView> {
      const callCode = await em.findOne(CallCode, { id });
      if (!callCode) throw new NotFoundError('Call code', id);
      callCode.revokedAt ??= new Date();
      await em.flush();
      return toView(callCode);
    },

    async list(em: EntityManager): Promise<CallCodeView[]> {
      return (await em.find(CallCode, {}, { orderBy: { createdAt: 'desc' } })).map(toView);
    },

    /** The profile a code grants to a workspace, or null (unknown, revoked, or limited to another workspace). */
    async lookup(em: EntityManager, code: string, workspaceId: string): Promise<string | null> {
      const callCode = await em.findOne(CallCode, { codeHash: hash(code), revokedAt: null });
      if (!callCode) return null;
      if (callCode.workspaceId && callCode.workspaceId !== workspaceId) return null;
      return callCode.profile;
    },
  };
}

export type CallCodesService = ReturnType<typeof createCallCodesService>;
