/**
 * Builds the MCP server that answers one request, on the SDK's low-level `Server`.
 *
 * Why low-level: `tools/list` answers a list compiled once at boot (no per-request schema conversion) and
 * `tools/call` goes through our single wrapper. A fresh `Server` is built per request (cheap: no
 * registrations, just handlers), so no state — and no JSON-RPC id — is ever shared between two clients.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ProtocolError, ProtocolErrorCode, Server, type McpRequestContext } from '@modelcontextprotocol/server';
import { actorOf, type Principal } from '../auth/principal.ts';
import type { Logger } from '../logger.ts';
import { PLATFORM_NAME, PLATFORM_VERSION } from '../version.ts';
import { callTool } from './call-tool.ts';
import type { ToolContext } from './define-tool.ts';
import { getPrompt, promptListing } from './prompts.ts';
import { CATALOGUE, PROFILE_SUMMARIES, type CompiledProfile } from './registry.ts';
import { inspectorHtml } from './ui/campaign-inspector.ts';
import { compileResources, listResources, readResource, type CompiledResources } from './resources.ts';
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
  // Per profile, once: which prompts, resource templates and flows it shows, and their listings.
  const compiled = new Map<
    string,
    { resources: CompiledResources; promptListing: ReturnType<typeof promptListing>[] }
  >();
  for (const [name, profile] of catalogue) {
    const resources = compileResources(profile);
    if (resources.showsInspector) inspectorHtml(); // build the widget page at boot: a broken bundle fails here, not on a read
    compiled.set(name, { resources, promptListing: resources.prompts.map(promptListing) });
  }
  return function buildServer({ era, authInfo }: McpRequestContext): Server {
    const caller = authInfo?.extra as McpCallerInfo | undefined;
    if (!caller) throw new Error('MCP request reached the server without an authenticated caller');
    const profile = catalogue.get(caller.profile);
    const extras = compiled.get(caller.profile);
    if (!profile || !extras) throw new Error(`Unknown profile ${caller.profile}`);
    const server = new Server(
      { name: PLATFORM_NAME, title: 'Campaign platform', version: PLATFORM_VERSION },
      {
        capabilities: {
          tools: { listChanged: false },
          resources: { listChanged: false, subscribe: false },
          prompts: { listChanged: false },
        },
        instructions: SERVER_INSTRUCTIONS,
      },
    );
    const scope = () => ({
      workspaceId: caller.principal.workspaceId,
      em: deps.orm.em.fork(),
      actor: actorOf(caller.principal),
    });
    const resourceCaller = () => ({ principal: caller.principal, scope: scope(), services: deps.services, profile });
    const log = deps.log.child({ requestId: caller.requestId, workspaceId: caller.principal.workspaceId });

    server.setRequestHandler('tools/list', async () => ({ tools: [...profile.listing] }));

    server.setRequestHandler('resources/list', async () => ({
      resources: listResources(resourceCaller(), extras.resources),
    }));
    server.setRequestHandler('resources/templates/list', async () => ({
      resourceTemplates: [...extras.resources.templates],
    }));
    server.setRequestHandler('resources/read', async (request) =>
      readResource(request.params.uri, resourceCaller(), extras.resources),
    );
    server.setRequestHandler('prompts/list', async () => ({ prompts: extras.promptListing }));
    server.setRequestHandler('prompts/get', async (request) => {
      const prompt = extras.resources.prompts.find((p) => p.name === request.params.name);
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
      return getPrompt(prompt, request.params.arguments);
    });

    server.setRequestHandler('tools/call', async (request) => {
      const ctx: ToolContext = {
        principal: caller.principal,
        scope: scope(),
        services: deps.services,
        log,
        era,
        profile: caller.profile,
        profileSummaries: PROFILE_SUMMARIES,
        audit: (entry) =>
          deps.services.audit.record(deps.orm.em.fork(), {
            workspaceId: caller.principal.workspaceId,
            actor: actorOf(caller.principal),
            ...entry,
            requestId: caller.requestId,
          }),
      };
      return callTool(profile, request.params.name, request.params.arguments, ctx);
    });

    return server;
  };
}
