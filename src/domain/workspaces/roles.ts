/**
 * Workspace roles, from most to least privileged.
 *
 * - owner: everything, including deleting the workspace and managing credits;
 * - admin: also manages API keys, members, custom domains and connected apps; reads the audit log;
 * - editor: mutates campaigns and spends credits;
 * - viewer: reads only.
 */
export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { owner: 3, admin: 2, editor: 1, viewer: 0 };

/** True when `role` is at least as privileged as `minimum`. */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
