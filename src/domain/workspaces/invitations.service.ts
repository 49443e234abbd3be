/**
 * Invitations by link: an admin invites an email with a role, the platform shows the link once, and the person
 * who signs in with that email accepts it and becomes a member with that role.
 *
 * Who may invite whom follows `assertMayAssignRole` (admins invite up to admin, only owners invite owners), and
 * is checked twice: when the link is made, and again when it is accepted (against the inviter's role at that
 * moment), so a link cannot grant more than its inviter may still grant. A link works once: accepting marks it
 * with a conditional update inside the transaction that adds the membership, so two tabs accepting at once add
 * one membership and the other is told the link was used.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { ACROSS_WORKSPACES, forWorkspace } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { Invitation } from './invitation.entity.ts';
import { assertMayAssignRole } from './membership-policy.ts';
import { Membership } from './membership.entity.ts';
import { hashOneTimeToken, isOneTimeToken, newOneTimeToken } from './one-time-tokens.ts';
import type { Role } from './roles.ts';
import type { User } from './user.entity.ts';
import { Workspace } from './workspace.entity.ts';
import { assertWorkspaceNameFree } from './workspaces.service.ts';
import { Email, RoleSchema } from './workspace.schemas.ts';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface PendingInvitationView {
  id: string;
  email: string;
  role: Role;
  invitedBy: { name: string; email: string };
  createdAt: Date;
  expiresAt: Date;
}

/** What the invitee sees before accepting. */
export interface InvitationPreview {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: Role;
  invitedByName: string;
  expiresAt: Date;
}

/** Why a link cannot be used, in words for the person holding it. */
export class InvitationUnusableError extends ConflictError {
  constructor(reason: 'unknown' | 'expired' | 'revoked' | 'accepted') {
    const text = {
      unknown: 'This invitation link is not valid. Check that you copied the whole link, or ask for a new one.',
      expired: 'This invitation link has expired. Ask the person who invited you for a new one.',
      revoked: 'This invitation was withdrawn by an admin of the workspace. Ask them for a new one if needed.',
      accepted: 'This invitation link was already used. Each link works once; ask for a new one if needed.',
    }[reason];
    super(text, { reason });
  }
}

export function createInvitationsService() {
  async function byToken(em: EntityManager, token: string): Promise<Invitation> {
    if (!isOneTimeToken(token)) throw new InvitationUnusableError('unknown');
    // Found by the token's hash before any workspace is known, as API keys are: across workspaces on purpose.
    const invitation = await em.findOne(
      Invitation,
      { tokenHash: hashOneTimeToken(token) },
      { ...ACROSS_WORKSPACES, populate: ['workspace', 'invitedBy'] },
    );
    if (!invitation || invitation.workspace.getEntity().deletedAt) throw new InvitationUnusableError('unknown');
    if (invitation.acceptedAt) throw new InvitationUnusableError('accepted');
    if (invitation.revokedAt) throw new InvitationUnusableError('revoked');
    if (invitation.expiresAt.getTime() <= Date.now()) throw new InvitationUnusableError('expired');
    return invitation;
  }

  async function preview(em: EntityManager, token: string): Promise<InvitationPreview> {
    const invitation = await byToken(em, token);
    return {
      id: invitation.id,
      workspaceId: invitation.workspace.id,
      workspaceName: invitation.workspace.getEntity().name,
      email: invitation.email,
      role: invitation.role,
      invitedByName: invitation.invitedBy.getEntity().name,
      expiresAt: invitation.expiresAt,
    };
  }

  return {
    /** What a link offers, for the page the invitee opens; throws `InvitationUnusableError` when it cannot be used. */
    preview,

    /**
     * Makes an invitation link. An earlier pending invitation of the same email to the same workspace is
     * withdrawn (its link stops working), so there is one live link per person. Returns the token once.
     */
    async create(
      em: EntityManager,
      input: {
        workspaceId: string;
        inviter: { userId: string; role: Role };
        email: string;
        role: string;
        ttlMs?: number;
      },
    ): Promise<{ invitation: Invitation; token: string; replaced: number }> {
      const email = parseInput(Email, input.email, 'email');
      const role = parseInput(RoleSchema, input.role, 'role');
      const scoped = forWorkspace(em, input.workspaceId);
      const existingMember = await scoped.findOne(Membership, {
        workspace: input.workspaceId,
        user: { email },
      });
      if (existingMember) {
        throw new ValidationError(`${email} is already a member (${existingMember.role}). Change their role instead.`);
      }
      assertMayAssignRole(input.inviter, { userId: `invitee:${email}`, currentRole: null }, role);
      const { token, hash } = newOneTimeToken();
      const now = new Date();
      const replaced = await scoped.nativeUpdate(
        Invitation,
        { workspace: input.workspaceId, email, acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } },
        { revokedAt: now },
      );
      const invitation = scoped.create(Invitation, {
        workspace: input.workspaceId,
        email,
        role,
        tokenHash: hash,
        invitedBy: input.inviter.userId,
        expiresAt: new Date(now.getTime() + (input.ttlMs ?? INVITATION_TTL_MS)),
        acceptedAt: null,
        acceptedBy: null,
        revokedAt: null,
      });
      await scoped.flush();
      return { invitation, token, replaced };
    },

    /** Invitations that can still be accepted, newest first; never their tokens. */
    async listPending(em: EntityManager, workspaceId: string): Promise<PendingInvitationView[]> {
      const rows = await forWorkspace(em, workspaceId).find(
        Invitation,
        { workspace: workspaceId, acceptedAt: null, revokedAt: null, expiresAt: { $gt: new Date() } },
        { populate: ['invitedBy'], orderBy: { createdAt: 'desc', id: 'desc' } },
      );
      return rows.map((row) => ({
        id: row.id,
        email: row.email,
        role: row.role,
        invitedBy: { name: row.invitedBy.getEntity().name, email: row.invitedBy.getEntity().email },
        createdAt: row.createdAt,
        expiresAt: row.expiresAt,
      }));
    },

    /** Withdraws a pending invitation; the same role rule as inviting (only owners withdraw owner invitations). */
    async revoke(
      em: EntityManager,
      workspaceId: string,
      invitationId: string,
      actor: { userId: string; role: Role },
    ): Promise<Invitation> {
      const scoped = forWorkspace(em, workspaceId);
      const invitation = await scoped.findOne(Invitation, { id: invitationId, workspace: workspaceId });
      if (!invitation) throw new NotFoundError('Invitation', invitationId);
      assertMayAssignRole(actor, { userId: `invitee:${invitation.email}`, currentRole: null }, invitation.role);
      if (invitation.acceptedAt) throw new ConflictError(`${invitation.email} already accepted this invitation`);
      if (!invitation.revokedAt) {
        invitation.revokedAt = new Date();
        await scoped.flush();
      }
      return invitation;
    },

    /**
     * Accepts a link as `user`: the user's email must be the invited one, the inviter must still be allowed to
     * grant the role, and the link must be unused. Adds the membership and uses up the link in one transaction;
     * any refusal changes nothing.
     */
    async accept(em: EntityManager, token: string, user: Pick<User, 'id' | 'email'>): Promise<InvitationPreview> {
      const offer = await preview(em, token);
      if (offer.email !== user.email) {
        throw new ValidationError(
          `This invitation is for ${offer.email}, but you are signed in as ${user.email}. Sign out and sign in ` +
            `(or sign up) with ${offer.email}, or ask for an invitation to ${user.email}.`,
          { reason: 'email_mismatch' },
        );
      }
      return forWorkspace(em, offer.workspaceId).transactional(async (tx) => {
        const invitation = await tx.findOneOrFail(Invitation, { id: offer.id });
        const inviterId = invitation.invitedBy.id;
        const inviterMembership = await tx.findOne(Membership, { workspace: offer.workspaceId, user: inviterId });
        if (!inviterMembership) {
          throw new ConflictError(
            'The person who invited you is no longer a member of this workspace, so the invitation lapsed. Ask an admin for a new one.',
          );
        }
        assertMayAssignRole(
          { userId: inviterId, role: inviterMembership.role },
          { userId: user.id, currentRole: null },
          offer.role,
        );
        if (await tx.count(Membership, { workspace: offer.workspaceId, user: user.id })) {
          throw new ConflictError(`You are already a member of ${offer.workspaceName}.`);
        }
        if (offer.role === 'owner') {
          const workspace = await tx.findOneOrFail(Workspace, { id: offer.workspaceId });
          await assertWorkspaceNameFree(tx, [user.id], workspace.name, {
            exceptWorkspaceId: workspace.id,
            actorUserId: user.id,
            joining: true,
          });
        }
        // The single use: only one transaction can turn this row from pending to accepted.
        const used = await tx.nativeUpdate(
          Invitation,
          { id: offer.id, acceptedAt: null, revokedAt: null, expiresAt: { $gt: new Date() } },
          { acceptedAt: new Date(), acceptedBy: user.id },
        );
        if (used !== 1) throw new InvitationUnusableError('accepted');
        tx.create(Membership, {
          workspace: tx.getReference(Workspace, offer.workspaceId),
          user: user.id,
          role: offer.role,
        });
        await tx.flush();
        return offer;
      });
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
