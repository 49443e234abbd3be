/**
 * A person's password after sign-up: changing it (knowing the current one) and resetting it through a one-time
 * link an operator issues from the CLI (`campaignctl user:reset-password`; there is no email server). Either way
 * the new password ends the person's other dashboard sessions, so a stolen session does not survive the change.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword, verifyPassword } from '../../auth/passwords.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { Session } from '../sessions/session.entity.ts';
import { parseInput } from '../shared/validate.ts';
import { hashOneTimeToken, isOneTimeToken, newOneTimeToken } from './one-time-tokens.ts';
import { PasswordReset } from './password-reset.entity.ts';
import { User } from './user.entity.ts';
import { Email, Password } from './workspace.schemas.ts';

/** How long a reset link works: long enough to hand it over, short enough that a forgotten one is harmless. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

/** Why a reset link cannot be used, in words for the person holding it. */
export class PasswordResetUnusableError extends ConflictError {
  constructor(reason: 'unknown' | 'expired' | 'used') {
    const text = {
      unknown: 'This password reset link is not valid. Ask the operator for a new one.',
      expired: 'This password reset link has expired. Ask the operator for a new one.',
      used: 'This password reset link was already used. Each link works once; ask the operator for a new one.',
    }[reason];
    super(text, { reason });
  }
}

function newPassword(value: string, confirmation: string): string {
  const password = parseInput(Password, value, 'new password');
  if (password !== confirmation) throw new ValidationError('The two new passwords do not match.');
  return password;
}

export function createPasswordsService() {
  async function usableReset(em: EntityManager, token: string): Promise<PasswordReset> {
    if (!isOneTimeToken(token)) throw new PasswordResetUnusableError('unknown');
    const reset = await em.findOne(PasswordReset, { tokenHash: hashOneTimeToken(token) }, { populate: ['user'] });
    if (!reset) throw new PasswordResetUnusableError('unknown');
    if (reset.usedAt) throw new PasswordResetUnusableError('used');
    if (reset.expiresAt.getTime() <= Date.now()) throw new PasswordResetUnusableError('expired');
    return reset;
  }

  return {
    /**
     * Sets a new password for a signed-in person who knows the current one; ends their other sessions (the one
     * in `keepSessionId` stays signed in). Returns how many sessions ended.
     */
    async change(
      em: EntityManager,
      input: { userId: string; current: string; next: string; confirmation: string; keepSessionId: string },
    ): Promise<{ endedSessions: number }> {
      const user = await em.findOneOrFail(User, { id: input.userId }, { populate: ['passwordHash'] });
      if (!user.passwordHash || !(await verifyPassword(input.current, user.passwordHash))) {
        throw new ValidationError('The current password is not right. Nothing was changed.', {
          reason: 'wrong_password',
        });
      }
      const password = newPassword(input.next, input.confirmation);
      if (password === input.current) throw new ValidationError('The new password is the same as the current one.');
      return em.transactional(async (tx) => {
        await tx.nativeUpdate(User, { id: user.id }, { passwordHash: await hashPassword(password) });
        const endedSessions = await tx.nativeDelete(Session, { user: user.id, id: { $ne: input.keepSessionId } });
        return { endedSessions };
      });
    },

    /** Issues a reset link's token for the person with `email` (operator only); earlier unused links stop working. */
    async issueReset(
      em: EntityManager,
      email: string,
      ttlMs = PASSWORD_RESET_TTL_MS,
    ): Promise<{ token: string; user: User; expiresAt: Date }> {
      const address = parseInput(Email, email, 'email');
      const user = await em.findOne(User, { email: address });
      if (!user) throw new ValidationError(`No account uses ${address}.`);
      const { token, hash } = newOneTimeToken();
      const now = new Date();
      const expiresAt = new Date(now.getTime() + ttlMs);
      await em.transactional(async (tx) => {
        await tx.nativeUpdate(PasswordReset, { user: user.id, usedAt: null }, { usedAt: now });
        tx.create(PasswordReset, { user: user.id, tokenHash: hash, expiresAt, usedAt: null });
        await tx.flush();
      });
      return { token, user, expiresAt };
    },

    /** Whose password a link resets (for the page), or why it cannot be used. */
    async previewReset(em: EntityManager, token: string): Promise<{ email: string; name: string }> {
      const reset = await usableReset(em, token);
      return { email: reset.user.getEntity().email, name: reset.user.getEntity().name };
    },

    /**
     * Sets a new password through a reset link, uses up the link and ends every session of the person (whoever
     * held one is signed out). Refusals change nothing.
     */
    async reset(
      em: EntityManager,
      input: { token: string; next: string; confirmation: string },
    ): Promise<{ user: User; endedSessions: number }> {
      const reset = await usableReset(em, input.token);
      const password = newPassword(input.next, input.confirmation);
      const passwordHash = await hashPassword(password);
      return em.transactional(async (tx) => {
        const used = await tx.nativeUpdate(
          PasswordReset,
          { id: reset.id, usedAt: null, expiresAt: { $gt: new Date() } },
          { usedAt: new Date() },
        );
        if (used !== 1) throw new PasswordResetUnusableError('used');
        await tx.nativeUpdate(User, { id: reset.user.id }, { passwordHash });
        const endedSessions = await tx.nativeDelete(Session, { user: reset.user.id });
        return { user: reset.user.getEntity(), endedSessions };
      });
    },
  };
}

export type PasswordsService = ReturnType<typeof createPasswordsService>;
