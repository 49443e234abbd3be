/**
 * Who may change whose membership. Admins manage members up to admin; only owners grant or take away the
 * owner role. Nobody changes their own role (ask another admin or owner), so nobody locks themselves out.
 */
import { ForbiddenError } from '../../errors.ts';
import { roleAtLeast, type Role } from './roles.ts';

export function assertMayAssignRole(
  actor: { userId: string; role: Role },
  target: { userId: string; currentRole: Role | null },
  newRole: Role | null,
): void {
  if (!roleAtLeast(actor.role, 'admin')) throw new ForbiddenError('Only admins and owners manage members');
  if (actor.userId === target.userId)
    throw new ForbiddenError('You cannot change your own membership; ask another admin or owner');
  const touchesOwner = newRole === 'owner' || target.currentRole === 'owner';
  if (touchesOwner && actor.role !== 'owner') throw new ForbiddenError('Only owners grant or remove the owner role');
}
