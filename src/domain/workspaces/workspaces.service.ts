/**
 * People, workspaces, memberships and API keys: the operations behind the operator CLI and the dashboard.
 *
 * These run outside a workspace-bound principal (an operator or a signed-in person acts on a workspace they
 * name), so each takes an EntityManager and checks membership or existence itself.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { generateApiKeySecret } from '../../auth/api-key-secrets.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.ts';
import { ACROSS_WORKSPACES } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { newId } from '../shared/ids.ts';
import { lockForTransaction } from '../../db/transaction-lock.ts';
import { ApiKey } from './api-key.entity.ts';
import { Membership } from './membership.entity.ts';
import { roleAtLeast, type Role } from './roles.ts';
import { RESERVED_SLUGS, slugify } from './slug.ts';
import { User } from './user.entity.ts';
import { Workspace } from './workspace.entity.ts';
import {
  AddMemberSchema,
  CreateApiKeySchema,
  CreateUserSchema,
  CreateWorkspaceSchema,
  Email,
  WorkspaceName,
  type AddMemberInput,
  type CreateApiKeyInput,
  type CreateUserInput,
  type CreateWorkspaceInput,
} from './workspace.schemas.ts';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  disabledAt: string | null;
}

export function toApiKeyView(key: ApiKey, creatorEmail: string | null): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    role: key.role,
    createdBy: creatorEmail,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    disabledAt: key.disabledAt?.toISOString() ?? null,
  };
}

/** Two workspace names that compare equal here are "the same name" for one owner. */
export function sameNameKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-US');
}

/**
 * One person never owns two workspaces of the same name (compared case-insensitively, after Unicode
 * normalisation): otherwise the switcher and the OAuth consent page show two choices nobody can tell apart.
 * Checked when a workspace is created or renamed (its owners) and when someone becomes an owner of one (the new
 * owner: `joining`). Race-safe: each owner's advisory lock is held until `tx` commits, so two concurrent creates
 * of "Acme" by the same person run one after the other and the second sees the first. Locks are taken in id
 * order so two renames sharing owners cannot deadlock.
 */
export async function assertWorkspaceNameFree(
  tx: EntityManager,
  ownerIds: string[],
  name: string,
  options: { exceptWorkspaceId: string | null; actorUserId: string | null; joining?: boolean },
): Promise<void> {
  const key = sameNameKey(name);
  for (const ownerId of [...new Set(ownerIds)].sort()) {
    await lockForTransaction(tx, `workspace-names:${ownerId}`);
    const owned = await tx.find(
      Membership,
      { user: ownerId, role: 'owner', workspace: { deletedAt: null } },
      // A person's workspaces, whichever workspace `tx` is limited to (an invitation is accepted inside one).
      { populate: ['workspace', 'user'], ...ACROSS_WORKSPACES },
    );
    const clash = owned.find(
      (m) => m.workspace.id !== options.exceptWorkspaceId && sameNameKey(m.workspace.getEntity().name) === key,
    );
    if (!clash) continue;
    const existing = clash.workspace.getEntity().name;
    const email = clash.user.getEntity().email;
    throw new ValidationError(
      options.joining
        ? `${clash.user.id === options.actorUserId ? 'You already own' : `${email} already owns`} a workspace named "${existing}": as an owner of this one too, ${clash.user.id === options.actorUserId ? 'you' : 'they'} would have two workspaces nobody can tell apart. Rename one of them first.`
        : `${clash.user.id === options.actorUserId ? 'You already own' : `${email} (an owner) already owns`} a workspace named "${existing}". Choose a different name, so the two can be told apart.`,
      { reason: 'duplicate_workspace_name' },
    );
  }
}

export function createWorkspacesService(
  deps: {
    /** Called after anything that changes what an API key may do (the authenticator forgets its lookups). */
    onCredentialsChanged?: () => void;
  } = {},
) {
  const credentialsChanged = () => deps.onCredentialsChanged?.();
  async function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
    return em.findOne(User, { email: parseInput(Email, email, 'email') });
  }

  async function requireUserByEmail(em: EntityManager, email: string): Promise<User> {
    const user = await findUserByEmail(em, email);
    if (!user) throw new NotFoundError('User', email);
    return user;
  }

  async function requireWorkspace(em: EntityManager, workspaceId: string): Promise<Workspace> {
    const workspace = await em.findOne(Workspace, { id: workspaceId, deletedAt: null });
    if (!workspace) throw new NotFoundError('Workspace', workspaceId);
    return workspace;
  }

  async function membershipOf(em: EntityManager, workspaceId: string, userId: string): Promise<Membership | null> {
    return em.findOne(Membership, { workspace: workspaceId, user: userId });
  }

  async function uniqueSlug(em: EntityManager, name: string): Promise<string> {
    const base = slugify(name);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const candidate = attempt === 0 ? base : `${base}-${attempt + 1}`;
      if (RESERVED_SLUGS.has(candidate)) continue;
      if (!(await em.count(Workspace, { slug: candidate }))) return candidate;
    }
    return `${base}-${newId('workspace').slice(-6).toLowerCase()}`;
  }

  return {
    findUserByEmail,
    requireUserByEmail,
    requireWorkspace,
    membershipOf,

    /** The workspaces a person belongs to, with their role, oldest first. */
    async listForUser(em: EntityManager, userId: string): Promise<{ workspace: Workspace; role: Role }[]> {
      const memberships = await em.find(
        Membership,
        { user: userId, workspace: { deletedAt: null } },
        { populate: ['workspace'], orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      return memberships.map((m) => ({ workspace: m.workspace.getEntity(), role: m.role }));
    },

    async listMembers(
      em: EntityManager,
      workspaceId: string,
    ): Promise<{ userId: string; email: string; name: string; role: Role; since: Date }[]> {
      const memberships = await em.find(
        Membership,
        { workspace: workspaceId },
        { populate: ['user'], orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      return memberships.map((m) => ({
        userId: m.user.id,
        email: m.user.getEntity().email,
        name: m.user.getEntity().name,
        role: m.role,
        since: m.createdAt,
      }));
    },

    /** Removes a member; the last owner cannot be removed. */
    async removeMember(em: EntityManager, workspaceId: string, userId: string): Promise<Membership> {
      const membership = await em.findOne(Membership, { workspace: workspaceId, user: userId }, { populate: ['user'] });
      if (!membership) throw new NotFoundError('Member', userId);
      if (membership.role === 'owner' && (await em.count(Membership, { workspace: workspaceId, role: 'owner' })) <= 1) {
        throw new ConflictError('A workspace must keep at least one owner');
      }
      em.remove(membership);
      await em.flush();
      credentialsChanged();
      return membership;
    },

    /**
     * Deletes a workspace (softly: ledger and audit history stay). Its keys stop working at once because
     * authentication refuses deleted workspaces; the caller revokes its OAuth grants.
     */
    async softDelete(em: EntityManager, workspaceId: string, confirmName: string): Promise<Workspace> {
      const workspace = await requireWorkspace(em, workspaceId);
      if (confirmName.trim() !== workspace.name) {
        throw new ValidationError('Type the workspace name exactly to confirm deletion');
      }
      workspace.deletedAt = new Date();
      await em.nativeUpdate(ApiKey, { workspace: workspace.id, disabledAt: null }, { disabledAt: workspace.deletedAt });
      await em.flush();
      credentialsChanged();
      return workspace;
    },

    async createUser(em: EntityManager, input: CreateUserInput): Promise<User> {
      const data = parseInput(CreateUserSchema, input, 'user');
      if (await em.count(User, { email: data.email })) {
        throw new ConflictError(`A user with email ${data.email} already exists`);
      }
      const user = em.create(User, {
        email: data.email,
        name: data.name,
        passwordHash: data.password ? await hashPassword(data.password) : null,
      });
      try {
        await em.flush();
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          throw new ConflictError(`A user with email ${data.email} already exists`);
        }
        throw error;
      }
      return user;
    },

    /**
     * Creates a workspace with the given user as its owner. Refused when that person already owns a workspace
     * of the same name (see `assertNameFree`).
     */
    async createWorkspace(em: EntityManager, input: CreateWorkspaceInput): Promise<Workspace> {
      const data = parseInput(CreateWorkspaceSchema, input, 'workspace');
      const owner = await em.findOne(User, { id: data.ownerUserId });
      if (!owner) throw new NotFoundError('User', data.ownerUserId);
      return em.transactional(async (tx) => {
        await assertWorkspaceNameFree(tx, [owner.id], data.name, { exceptWorkspaceId: null, actorUserId: owner.id });
        const workspace = tx.create(Workspace, { name: data.name, slug: await uniqueSlug(tx, data.name) });
        tx.create(Membership, { workspace, user: owner.id, role: 'owner' });
        await tx.flush();
        return workspace;
      });
    },

    /** Renames a workspace; refused when one of its owners already owns another workspace of that name. */
    async renameWorkspace(
      em: EntityManager,
      workspaceId: string,
      name: string,
      actorUserId: string | null,
    ): Promise<{ previous: string; workspace: Workspace }> {
      const newName = parseInput(WorkspaceName, name, 'workspace name');
      return em.transactional(async (tx) => {
        const workspace = await requireWorkspace(tx, workspaceId);
        const owners = await tx.find(Membership, { workspace: workspaceId, role: 'owner' });
        await assertWorkspaceNameFree(
          tx,
          owners.map((m) => m.user.id),
          newName,
          { exceptWorkspaceId: workspaceId, actorUserId },
        );
        const previous = workspace.name;
        workspace.name = newName;
        await tx.flush();
        return { previous, workspace };
      });
    },

    /**
     * Adds a person to a workspace, or changes their role if they are already a member. Making someone an owner
     * is refused when they already own another workspace of this one's name (`assertWorkspaceNameFree`).
     */
    async setMember(
      em: EntityManager,
      workspaceId: string,
      input: AddMemberInput,
      actorUserId: string | null = null,
    ): Promise<{ membership: Membership; user: User; created: boolean }> {
      const data = parseInput(AddMemberSchema, input, 'member');
      const result = await em.transactional(async (tx) => {
        const workspace = await requireWorkspace(tx, workspaceId);
        const user = await requireUserByEmail(tx, data.email);
        const existing = await membershipOf(tx, workspace.id, user.id);
        if (data.role === 'owner' && existing?.role !== 'owner') {
          await assertWorkspaceNameFree(tx, [user.id], workspace.name, {
            exceptWorkspaceId: workspace.id,
            actorUserId,
            joining: true,
          });
        }
        if (existing) {
          if (existing.role === 'owner' && data.role !== 'owner') {
            const owners = await tx.count(Membership, { workspace: workspace.id, role: 'owner' });
            if (owners <= 1) throw new ConflictError('A workspace must keep at least one owner');
          }
          existing.role = data.role;
          await tx.flush();
          return { membership: existing, user, created: false };
        }
        const membership = tx.create(Membership, { workspace, user, role: data.role });
        await tx.flush();
        return { membership, user, created: true };
      });
      if (!result.created) credentialsChanged();
      return result;
    },

    /**
     * Creates an API key. The secret is returned once and never stored; the key's role may not exceed the
     * creator's role in that workspace.
     */
    async createApiKey(
      em: EntityManager,
      workspaceId: string,
      input: CreateApiKeyInput,
    ): Promise<{ key: ApiKey; secret: string }> {
      const data = parseInput(CreateApiKeySchema, input, 'API key');
      const workspace = await requireWorkspace(em, workspaceId);
      const creator = await em.findOne(User, { id: data.createdByUserId });
      if (!creator) throw new NotFoundError('User', data.createdByUserId);
      const membership = await membershipOf(em, workspace.id, creator.id);
      if (!membership) throw new ForbiddenError(`${creator.email} is not a member of workspace ${workspace.id}`);
      if (!roleAtLeast(membership.role, data.role)) {
        throw new ForbiddenError(
          `A key cannot carry a role higher than its creator's: ${creator.email} is ${membership.role} and asked for ${data.role}`,
        );
      }
      const generated = generateApiKeySecret();
      const key = em.create(ApiKey, {
        workspace,
        createdBy: creator,
        name: data.name,
        prefix: generated.prefix,
        secretHash: generated.hash,
        role: data.role,
        lastUsedAt: null,
        disabledAt: null,
      });
      await em.flush();
      return { key, secret: generated.secret };
    },

    async listApiKeys(em: EntityManager, workspaceId: string): Promise<ApiKeyView[]> {
      const keys = await em.find(
        ApiKey,
        { workspace: workspaceId },
        { orderBy: { createdAt: 'desc', id: 'desc' }, populate: ['createdBy'] },
      );
      return keys.map((key) => toApiKeyView(key, key.createdBy?.getEntity().email ?? null));
    },

    /** Disables a key (idempotent). Scoped by workspace: another workspace's key id is "not found". */
    async disableApiKey(em: EntityManager, workspaceId: string, keyId: string): Promise<ApiKey> {
      const key = await em.findOne(ApiKey, { id: keyId, workspace: workspaceId });
      if (!key) throw new NotFoundError('API key', keyId);
      if (!key.disabledAt) {
        key.disabledAt = new Date();
        await em.flush();
        credentialsChanged();
      }
      return key;
    },
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;
