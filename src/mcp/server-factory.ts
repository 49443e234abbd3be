/**
 * Builds the MCP server that answers one request, on the SDK's low-level `Server`.
 *
 * Why low-level: `tools/list` answers a list compiled once at boot (no per-request schema conversion) and
 * `tools/call` goes through our single wrapper. A fresh `Server` is built per request (cheap: no
 * registrations, just handlers), so no state — and no JSON-RPC id — is ever shared between two clients.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Server, type McpRequestContext } from '@modelcontextprotocol/server';
import { actorOf, type Principal } from '../auth/principal.ts';
import type { Logger } from '../logger.ts';
import { PLATFORM_NAME, PLATFORM_VERSION } from '../version.ts';
import { callTool } from './call-tool.ts';
import type { ToolContext } from './define-tool.ts';
import { CATALOGUE, PROFILE_SUMMARIES, type CompiledProfile } from './registry.ts';
import type { McpServices } from './services.ts';

/** What the HTTP edge hands to the factory through `authInfo.extra`. */
export interface McpCallerInfo {
  [key: string]: unknown;
  principal: Principal;
  profile: string;
  requestId: string;
}

export const SERVER_INSTRUCTIONS = [
  'This server manages marketing campaigns for exactly one workspace (the one this connection is bound to).',
  'Ground rules: query before managing; confirm with the user before any create, delete, publish or deploy and',
  'before anything that costs credits; poll long jobs instead of starting them again.',
  'Call get_platform_info with topic "organization" first and tell the user which workspace you act on.',
].join(' ');

export interface McpServerFactoryDeps {
  orm: MikroORM;
  services: McpServices;
  log: Logger;
  catalogue?: ReadonlyMap<string, CompiledProfile>;
}

export function createMcpServerFactory(deps: McpServerFactoryDeps) {
  const catalogue = deps.catalogue ?? CATALOGUE;
  return function buildServer({ era, authInfo }: McpRequestContext): Server {
    const caller = authInfo?.extra as McpCallerInfo | undefined;
    if (!caller) throw new Error('MCP request reached the server without an authenticated caller');
    const profile = catalogue.get(caller.profile);
    if (!profile) throw new Error(`Unknown profile ${caller.profile}`);
    const server = new Server(
      { name: PLATFORM_NAME, title: 'Campaign platform', version: PLATFORM_VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
    );
    const log = deps.log.child({ requestId: caller.requestId, workspaceId: caller.principal.workspaceId });

    server.setRequestHandler('tools/list', async () => ({ tools: [...profile.listing] }));

    server.setRequestHandler('tools/call', async (request) => {
      const ctx: ToolContext = {
        principal: caller.principal,
        scope: {
          workspaceId: caller.principal.workspaceId,
          em: deps.orm.em.fork(),
          actor: actorOf(caller.principal),
        },
        services: deps.services,
        log,
        era,
        profile: caller.profile,
        profileSummaries: PROFILE_SUMMARIES,
      };
      return callTool(profile, request.params.name, request.params.arguments, ctx);
    });

    return server;
  };
}
