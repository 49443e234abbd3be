/**
 * The signed-in CLI session: sign in through the browser (OAuth with PKCE), see who you are, call a tool of the
 * MCP server, sign out. These commands talk to an MCP endpoint, local or remote, never to the database.
 */
import { CliFailure, required, str, UsageError, type CliIo, type Command, type Options } from '../command.ts';

// The OAuth client pulls in undici and the MCP SDK: loaded by the commands that use it, so `--help` and usage
// errors answer at once.
const oauthSession = () => import('../oauth-session.ts');

const mcpUrlOf = (io: CliIo, options: Options) =>
  typeof options.url === 'string' ? options.url.replace(/\/+$/, '') : io.config.urls.mcp;

export const sessionCommands: Record<string, Command> = {
  login: {
    summary: 'Sign in through the browser (OAuth, PKCE) and keep the token for CLI commands.',
    usage: 'login [--url <MCP endpoint>]',
    options: { url: str },
    async run(io, options) {
      const mcpUrl = mcpUrlOf(io, options);
      const { login, callToolWithSession } = await oauthSession();
      await login({
        mcpUrl,
        file: io.config.cliCredentialsFile,
        announce: (url) =>
          io.out(
            `Open this URL in your browser to sign in and choose a workspace:\n\n  ${url}\n\nWaiting for the browser…`,
          ),
      });
      const result = await callToolWithSession(io.config.cliCredentialsFile, mcpUrl, 'get_platform_info', {
        topic: 'organization',
      });
      const organization = (result.structuredContent as { organization: { id: string; name: string; role: string } })
        .organization;
      io.result(
        { mcpUrl, workspace: organization },
        `Signed in. This CLI acts on workspace "${organization.name}" (${organization.id}) as ${organization.role}. Token stored in ${io.config.cliCredentialsFile}.`,
      );
    },
  },

  whoami: {
    summary: 'Show the workspace and role of the signed-in CLI session.',
    usage: 'whoami [--url <MCP endpoint>]',
    options: { url: str },
    async run(io, options) {
      const { callToolWithSession } = await oauthSession();
      const result = await callToolWithSession(
        io.config.cliCredentialsFile,
        mcpUrlOf(io, options),
        'get_platform_info',
        {
          topic: 'organization',
        },
      );
      const organization = (
        result.structuredContent as {
          organization: { id: string; name: string; role: string; credits: { available: number } };
        }
      ).organization;
      io.result(
        organization,
        `Workspace "${organization.name}" (${organization.id}); role ${organization.role}; credits available ${organization.credits.available}.`,
      );
    },
  },

  'tools:call': {
    summary: 'Call a tool of the MCP server with the signed-in CLI session.',
    usage: "tools:call --tool <name> [--args '<json object>'] [--url <MCP endpoint>]",
    options: { tool: str, args: str, url: str },
    required: ['tool'],
    async run(io, options) {
      let args: Record<string, unknown> = {};
      if (typeof options.args === 'string') {
        try {
          args = JSON.parse(options.args);
        } catch {
          throw new UsageError('--args must be a JSON object');
        }
        if (typeof args !== 'object' || args === null || Array.isArray(args))
          throw new UsageError('--args must be a JSON object');
      }
      const { callToolWithSession } = await oauthSession();
      const result = await callToolWithSession(
        io.config.cliCredentialsFile,
        mcpUrlOf(io, options),
        required(options, 'tool'),
        args,
      );
      const text = (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('\n');
      io.result(result, text);
      if (result.isError) throw new CliFailure();
    },
  },

  logout: {
    summary: 'Revoke the CLI session tokens and forget them.',
    usage: 'logout [--url <MCP endpoint>]',
    options: { url: str },
    async run(io, options) {
      const { logout } = await oauthSession();
      const signedOut = await logout(io.config.cliCredentialsFile, mcpUrlOf(io, options));
      io.result(
        { signedOut },
        signedOut ? 'Signed out; the tokens were revoked.' : 'There was no session to sign out of.',
      );
    },
  },
};
