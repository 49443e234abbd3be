/**
 * The human dashboard on the platform host: sign up, sign in and out; workspaces, members and roles; API keys
 * (secret shown once); custom domains of the brand site; social channels (connected accounts and their posts);
 * connected apps; the audit log; credits; the operator pages. Each page group keeps its routes next to its views; `kit.ts` holds what they share.
 *
 * Every page needs a session (HttpOnly cookie, server-side row), every POST a valid CSRF token, every
 * workspace page a membership (another workspace answers exactly like a missing one) and the permission its
 * action needs. Actions that change access land in the audit log.
 */
import Router from '@koa/router';
import { accountRoutes } from './account.ts';
import { analyticsRoutes } from './analytics.ts';
import { connectedAppRoutes } from './apps.ts';
import { auditLogRoutes } from './audit-log.ts';
import { brandRoutes } from './brand.ts';
import { campaignRoutes } from './campaigns.ts';
import { channelRoutes } from './channels.ts';
import { creditRoutes } from './credits.ts';
import { domainRoutes } from './domains.ts';
import { jobRoutes } from './jobs.ts';
import { keyRoutes } from './keys.ts';
import { createDashboardKit, type DashboardDeps } from './kit.ts';
import { invitationRoutes } from './invitations.ts';
import { mediaLibraryRoutes } from './media.ts';
import { memberRoutes } from './members.ts';
import { operatorRoutes } from './operator.ts';
import { productRoutes } from './products.ts';
import { surfaceRoutes } from './surfaces.ts';
import { workspaceRoutes } from './workspaces.ts';

export type { DashboardDeps } from './kit.ts';

export function dashboardRoutes(deps: DashboardDeps): Router {
  const kit = createDashboardKit(deps);
  const router = new Router();
  for (const group of [
    accountRoutes,
    workspaceRoutes,
    brandRoutes,
    productRoutes,
    mediaLibraryRoutes,
    surfaceRoutes,
    campaignRoutes,
    jobRoutes,
    analyticsRoutes,
    memberRoutes,
    invitationRoutes,
    keyRoutes,
    domainRoutes,
    channelRoutes,
    connectedAppRoutes,
    auditLogRoutes,
    creditRoutes,
    operatorRoutes,
  ]) {
    group(router, kit);
  }
  return router;
}
