/**
 * What each role may do. The single table every check reads: tool actions declare a permission and the tool
 * wrapper asks `can(role, permission)`; dashboard routes do the same. Profiles never change permissions.
 */
import type { Role } from '../domain/workspaces/roles.ts';

export const PERMISSIONS = [
  /** Read anything in the workspace (campaigns, products, analytics, jobs, brand). */
  'workspace:read',
  /** Create, change, publish, deploy and delete campaigns, products, surfaces and brand material. */
  'content:write',
  /** Start paid work: generation, renders, films. */
  'credits:spend',
  /** Create and disable API keys. */
  'keys:manage',
  /** Add, verify and remove the brand site's custom domains. */
  'domains:manage',
  /** Invite members and change roles. */
  'members:manage',
  /** List and revoke connected OAuth apps. */
  'apps:manage',
  /**
   * Connect, reconnect and disconnect social-network accounts: it hands the platform a credential that posts in
   * the brand's name, so it is an admin matter like API keys (posting with a connected account is content:write).
   */
  'channels:manage',
  /** Read the audit log. */
  'audit:read',
  /**
   * See software versions in `get_platform_info health` (Node.js, PostgreSQL, Temporal server): they tell
   * whoever reads them which known vulnerabilities to try, so only the people who run the workspace see them;
   * everyone else still gets status and latency.
   */
  'platform:versions',
  /** Grant or revoke credits, see billing. */
  'credits:manage',
  /** Delete the workspace. */
  'workspace:delete',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEWER: Permission[] = ['workspace:read'];
const EDITOR: Permission[] = [...VIEWER, 'content:write', 'credits:spend'];
const ADMIN: Permission[] = [
  ...EDITOR,
  'keys:manage',
  'domains:manage',
  'members:manage',
  'apps:manage',
  'channels:manage',
  'audit:read',
  'platform:versions',
];
const OWNER: Permission[] = [...ADMIN, 'credits:manage', 'workspace:delete'];

export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  viewer: new Set(VIEWER),
  editor: new Set(EDITOR),
  admin: new Set(ADMIN),
  owner: new Set(OWNER),
};

export function can(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}
