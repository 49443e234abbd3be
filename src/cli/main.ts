/**
 * `campaignctl`: the operator CLI. Every command validates its input, says what it did, and exits non-zero
 * with a clear message on failure. `--json` prints machine-readable output instead.
 *
 * With `DATABASE_URL` / `TEMPORAL_ADDRESS` unset it talks to the embedded services started by `npm start`.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import type { Container } from '../container.ts';
import { resolveLocalConfig, withLocalServices } from '../dev/local-services.ts';
import { isTerminalJobStatus } from '../domain/jobs/job-status.ts';
import { closeLoopbackAwareFetch } from '../net/loopback-aware-fetch.ts';
import { createLogger } from '../logger.ts';
import { describeFailure, TemporalUnreachableError } from './failures.ts';

type Options = Record<string, string | boolean | undefined>;

// Modules that pull in heavy dependencies (Temporal, oidc-provider, the ORM, undici) are loaded by the
// commands that use them, so `--help` and usage errors answer at once.
const oauthSession = () => import('./oauth-session.ts');
const jobsService = () => import('../domain/jobs/jobs.service.ts');

interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Options that must be given: checked before anything is loaded or connected, so a usage error is instant. */
  required?: string[];
  run(io: CliIo, options: Options): Promise<void>;
}

export interface CliIo {
  config: Config;
  json: boolean;
  out(line: string): void;
  result(value: unknown, human: string): void;
  container(): Promise<Container>;
}

class UsageError extends Error {}
/** The command already printed its failure (e.g. a tool error result); exit 1 without more output. */
class CliFailure extends Error {}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function integer(options: Options, name: string, fallback?: number): number {
  const value = options[name];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value.trim()))
    throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function readPassword(options: Options): string | undefined {
  if (options['password-stdin']) return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  return typeof options.password === 'string' ? options.password : undefined;
}

const str = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;

const mcpUrlOf = (io: CliIo, options: Options) =>
  typeof options.url === 'string' ? options.url.replace(/\/+$/, '') : io.config.urls.mcp;

const COMMANDS: Record<string, Command> = {
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

  migrate: {
    summary: 'Apply pending database migrations.',
    usage: 'migrate',
    options: {},
    async run(io) {
      const { createOrm, migrateToLatest } = await import('../db/orm.ts');
      const orm = await createOrm({ url: io.config.database.url! });
      try {
        const applied = await migrateToLatest(orm);
        io.result(
          { applied },
          applied.length
            ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
            : 'The database is up to date; no migration applied.',
        );
      } finally {
        await orm.close();
      }
    },
  },

  'user:create': {
    summary: 'Create a person who can sign in to the dashboard.',
    usage: 'user:create --email <email> --name <name> [--password-stdin | --password <password>]',
    options: { email: str, name: str, password: str, 'password-stdin': flag },
    required: ['email', 'name'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const user = await services.workspaces.createUser(orm.em.fork(), {
        email: required(options, 'email'),
        name: required(options, 'name'),
        password: readPassword(options),
      });
      io.result({ id: user.id, email: user.email, name: user.name }, `Created user ${user.email} (${user.id}).`);
    },
  },

  'workspace:create': {
    summary: 'Create a workspace owned by an existing user.',
    usage: 'workspace:create --name <name> --owner <email>',
    options: { name: str, owner: str },
    required: ['owner', 'name'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const em = orm.em.fork();
      const owner = await services.workspaces.requireUserByEmail(em, required(options, 'owner'));
      const workspace = await services.workspaces.createWorkspace(em, {
        name: required(options, 'name'),
        ownerUserId: owner.id,
      });
      io.result(
        { id: workspace.id, name: workspace.name, slug: workspace.slug, owner: owner.email },
        `Created workspace "${workspace.name}" (${workspace.id}, slug ${workspace.slug}) owned by ${owner.email}.`,
      );
    },
  },

  'member:set': {
    summary: 'Add a user to a workspace with a role, or change their role.',
    usage: 'member:set --workspace <id> --email <email> --role owner|admin|editor|viewer',
    options: { workspace: str, email: str, role: str },
    required: ['workspace', 'email', 'role'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const { user, membership, created } = await services.workspaces.setMember(
        orm.em.fork(),
        required(options, 'workspace'),
        {
          email: required(options, 'email'),
          role: required(options, 'role') as never,
        },
      );
      io.result(
        { workspaceId: membership.workspace.id, userId: user.id, role: membership.role, created },
        `${created ? 'Added' : 'Updated'} ${user.email} as ${membership.role} of ${membership.workspace.id}.`,
      );
    },
  },

  'key:create': {
    summary: 'Create a workspace API key; the secret is printed once.',
    usage: 'key:create --workspace <id> --creator <email> --name <name> [--role editor]',
    options: { workspace: str, creator: str, name: str, role: str },
    required: ['creator', 'workspace', 'name'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const em = orm.em.fork();
      const creator = await services.workspaces.requireUserByEmail(em, required(options, 'creator'));
      const { key, secret } = await services.workspaces.createApiKey(em, required(options, 'workspace'), {
        name: required(options, 'name'),
        role: ((options.role as string | undefined) ?? 'editor') as never,
        createdByUserId: creator.id,
      });
      io.result(
        { id: key.id, name: key.name, prefix: key.prefix, role: key.role, secret },
        `Created API key "${key.name}" (${key.id}, role ${key.role}).\nSecret (shown once, store it now): ${secret}`,
      );
    },
  },

  'key:list': {
    summary: "List a workspace's API keys (never their secrets).",
    usage: 'key:list --workspace <id>',
    options: { workspace: str },
    required: ['workspace'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const keys = await services.workspaces.listApiKeys(orm.em.fork(), required(options, 'workspace'));
      io.result(
        keys,
        keys.length
          ? keys
              .map(
                (k) =>
                  `${k.id}  ${k.prefix}…  ${k.role.padEnd(6)}  ${k.disabledAt ? 'disabled' : 'active  '}  ${k.name}  (by ${k.createdBy ?? 'unknown'}, last used ${k.lastUsedAt ?? 'never'})`,
              )
              .join('\n')
          : 'No API keys.',
      );
    },
  },

  'key:disable': {
    summary: 'Disable an API key (running API instances refuse it within API_KEY_CACHE_TTL_MS, 1 s).',
    usage: 'key:disable --workspace <id> --key <key id>',
    options: { workspace: str, key: str },
    required: ['workspace', 'key'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const key = await services.workspaces.disableApiKey(
        orm.em.fork(),
        required(options, 'workspace'),
        required(options, 'key'),
      );
      io.result(
        { id: key.id, disabledAt: key.disabledAt?.toISOString() },
        `Disabled API key ${key.id} ("${key.name}").`,
      );
    },
  },

  'credits:grant': {
    summary: 'Grant credits to a workspace.',
    usage: 'credits:grant --workspace <id> --amount <n> [--note <text>] [--idempotency-key <key>]',
    options: { workspace: str, amount: str, note: str, 'idempotency-key': str },
    required: ['workspace'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const workspaceId = required(options, 'workspace');
      const amount = integer(options, 'amount');
      const idempotencyKey =
        (options['idempotency-key'] as string | undefined) ?? `operator-grant:${workspaceId}:${Date.now()}:${amount}`;
      const { entry, replayed } = await services.credits.grant(orm.em.fork(), {
        workspaceId,
        amount,
        idempotencyKey,
        description: (options.note as string | undefined) ?? 'operator grant',
        actor: 'operator',
      });
      const balance = await services.credits.balance(orm.em.fork(), workspaceId);
      io.result(
        { entryId: entry.id, replayed, balance },
        `${replayed ? 'Already granted (same idempotency key)' : `Granted ${amount} credits`} to ${workspaceId}; available now ${balance.available}.`,
      );
    },
  },

  'credits:balance': {
    summary: "Show a workspace's credit balance.",
    usage: 'credits:balance --workspace <id>',
    options: { workspace: str },
    required: ['workspace'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const workspaceId = required(options, 'workspace');
      await services.workspaces.requireWorkspace(orm.em.fork(), workspaceId);
      const balance = await services.credits.balance(orm.em.fork(), workspaceId);
      io.result(balance, `Available ${balance.available}, held ${balance.held}, spent ${balance.spent}.`);
    },
  },

  'oauth:client-internal': {
    summary: 'Mark an OAuth client as a verified internal client (or unmark it with --off).',
    usage: 'oauth:client-internal --client <client_id> [--note <text>] [--off]',
    options: { client: str, note: str, off: flag },
    required: ['client'],
    async run(io, options) {
      const { orm } = await io.container();
      const clientId = required(options, 'client');
      const internal = !options.off;
      await orm.em.getConnection().execute(
        `insert into oauth_client_flags (client_id, internal, note, updated_at) values (?, ?, ?, now())
         on conflict (client_id) do update set internal = excluded.internal, note = excluded.note, updated_at = now()`,
        [clientId, internal, (options.note as string | undefined) ?? null],
      );
      io.result({ clientId, internal }, `${clientId} is ${internal ? 'now' : 'no longer'} a verified internal client.`);
    },
  },

  'callcode:issue': {
    summary: 'Issue a secret call code that selects a tool profile (printed once, stored hashed).',
    usage: 'callcode:issue --profile <name> [--workspace <ws_id>] [--note <text>]',
    options: { profile: str, workspace: str, note: str },
    required: ['profile'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const em = orm.em.fork();
      const workspaceId = typeof options.workspace === 'string' ? options.workspace.trim() : null;
      if (workspaceId) await services.workspaces.requireWorkspace(em, workspaceId);
      const { code, callCode } = await services.callCodes.issue(
        em,
        { profile: required(options, 'profile'), workspaceId, note: (options.note as string | undefined) ?? null },
        'operator-cli',
      );
      io.result(
        { code, ...callCode },
        `Call code for profile ${callCode.profile}${workspaceId ? ` (workspace ${workspaceId} only)` : ''}; shown once, store it now:\n\n  ${code}\n\nUse it as ${io.config.urls.mcp}?profile=${code}`,
      );
    },
  },

  'callcode:list': {
    summary: 'List call codes (prefix, profile, workspace limit, state); the codes themselves are never shown.',
    usage: 'callcode:list',
    options: {},
    async run(io) {
      const { orm, services } = await io.container();
      const codes = await services.callCodes.list(orm.em.fork());
      io.result(
        codes,
        codes.length
          ? codes
              .map(
                (c) =>
                  `${c.id}  ${c.prefix}…  ${c.profile}  ${c.workspaceId ?? 'any workspace'}  ${c.revokedAt ? `revoked ${c.revokedAt}` : 'active'}${c.note ? `  ${c.note}` : ''}`,
              )
              .join('\n')
          : 'No call codes.',
      );
    },
  },

  'callcode:revoke': {
    summary: 'Revoke a call code by id; connections using it fall back to the discovery profile.',
    usage: 'callcode:revoke --id <ccd_id>',
    options: { id: str },
    required: ['id'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const callCode = await services.callCodes.revoke(orm.em.fork(), required(options, 'id'));
      io.result(callCode, `Revoked call code ${callCode.id} (${callCode.prefix}…, profile ${callCode.profile}).`);
    },
  },

  'user:operator': {
    summary: 'Grant (or with --off remove) platform-operator rights: the operator pages of the dashboard.',
    usage: 'user:operator --email <email> [--off]',
    options: { email: str, off: flag },
    required: ['email'],
    async run(io, options) {
      const { orm } = await io.container();
      const email = required(options, 'email').toLowerCase();
      const on = !options.off;
      const updated = await orm.em
        .getConnection()
        .execute<{ id: string }[]>('update users set is_operator = ? where email = ? returning id', [on, email]);
      if (!updated.length) throw new UsageError(`No user with email ${email}`);
      io.result({ email, operator: on }, `${email} is ${on ? 'now' : 'no longer'} a platform operator.`);
    },
  },

  'oauth:rotate-signing-key': {
    summary: 'Add a new signing key for the authorization server (it signs from the next restart on).',
    usage: 'oauth:rotate-signing-key',
    options: {},
    async run(io) {
      const { orm, config } = await io.container();
      const { rotateSigningKey } = await import('../auth/oidc/signing-keys.ts');
      const kid = await rotateSigningKey(orm, config.secrets.cookieKeys);
      io.result(
        { kid },
        `Added signing key ${kid}; restart the API instances to sign with it (older keys stay published).`,
      );
    },
  },

  'jobs:selftest': {
    summary: 'Run the job pipeline self-test (N timed steps on the worker).',
    usage: 'jobs:selftest --workspace <id> [--steps 5] [--step-ms 500] [--key default] [--wait]',
    options: { workspace: str, steps: str, 'step-ms': str, key: str, wait: flag },
    required: ['workspace'],
    async run(io, options) {
      const container = await io.container();
      const { toJobView } = await jobsService();
      const workspaceId = required(options, 'workspace');
      const steps = integer(options, 'steps', 5);
      const stepMs = integer(options, 'step-ms', 500);
      if (steps < 1 || steps > 1000) throw new UsageError('--steps must be between 1 and 1000');
      if (stepMs < 0 || stepMs > 60_000) throw new UsageError('--step-ms must be between 0 and 60000');
      await container.services.workspaces.requireWorkspace(container.orm.em.fork(), workspaceId);
      // Reach Temporal before writing the job row: an unreachable server is then a clear start-up failure
      // instead of a job that fails at once and stays in the workspace's history.
      await container.temporal.connection.ensureConnected().catch((error: unknown) => {
        throw new TemporalUnreachableError(error);
      });
      const scope = { workspaceId, em: container.orm.em.fork(), actor: 'operator' };
      const { job, reused } = await container.services.jobs.start(scope, {
        kind: 'selftest',
        workflowType: 'selftestWorkflow',
        businessKey: (options.key as string | undefined) ?? 'default',
        input: { steps, stepMs },
        summary: `Self-test: ${steps} steps of ${stepMs} ms`,
      });
      io.out(
        `${reused ? 'A self-test is already running on this key' : 'Started self-test'}: job ${job.id} (workflow ${job.workflowId}).`,
      );
      if (!options.wait) {
        io.result(toJobView(job), `Follow it with: campaignctl jobs:get --workspace ${workspaceId} --job ${job.id}`);
        return;
      }
      let current = job;
      while (!isTerminalJobStatus(current.status)) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        current = await container.services.jobs.get({ ...scope, em: container.orm.em.fork() }, job.id);
        if (!io.json)
          io.out(
            `  ${current.status} ${Math.round(current.progress.fraction * 100)}% ${current.progress.message ?? ''}`,
          );
      }
      io.result(toJobView(current), `Job ${current.id} ended: ${current.status}.`);
    },
  },

  'jobs:get': {
    summary: 'Show a job of a workspace.',
    usage: 'jobs:get --workspace <id> --job <id>',
    options: { workspace: str, job: str },
    required: ['workspace', 'job'],
    async run(io, options) {
      const container = await io.container();
      const { toJobView } = await jobsService();
      const scope = { workspaceId: required(options, 'workspace'), em: container.orm.em.fork(), actor: 'operator' };
      const job = toJobView(await container.services.jobs.get(scope, required(options, 'job')));
      io.result(
        job,
        `${job.id} ${job.kind} ${job.status} ${Math.round(job.progress.fraction * 100)}%${job.error ? ` error: ${job.error.message}` : ''}`,
      );
    },
  },
};

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(18)} ${c.summary}`);
  return `campaignctl <command> [options] [--json] [--debug]\n\nCommands:\n${lines.join('\n')}\n\nRun "campaignctl <command> --help" for its options. --json prints machine-readable output; --debug prints\nthe stack trace of an unexpected error.`;
}

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  write = (s: string) => process.stdout.write(s),
): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help') {
    write(`${help()}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`Unknown command "${name}"; "campaignctl --help" lists the commands.\n`);
    return 2;
  }
  let options: Options;
  try {
    options = parseArgs({
      args: rest,
      options: { ...command.options, json: flag, help: flag, debug: flag },
      strict: true,
      allowPositionals: false,
    }).values as Options;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nUsage: campaignctl ${command.usage}\n`);
    return 2;
  }
  if (options.help) {
    write(`${command.summary}\nUsage: campaignctl ${command.usage}\n`);
    return 0;
  }
  try {
    for (const option of command.required ?? []) required(options, option);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nUsage: campaignctl ${command.usage}\n`);
    return 2;
  }
  let loaded: Config;
  try {
    loaded = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${error.problems.join('; ')} (see .env.example).\n`);
      return 78; // EX_CONFIG, as the API and the worker
    }
    throw error;
  }
  // Unset DATABASE_URL / TEMPORAL_ADDRESS / COOKIE_SECRETS mean the services `npm start` runs, found by the
  // same rule the dev stack starts them with. The cookie secret is read (or created) only by commands that
  // open the database: `login` against a remote server must not write into DATA_DIR.
  const config = withLocalServices(loaded);
  let container: Container | undefined;
  const json = Boolean(options.json);
  const io: CliIo = {
    config,
    json,
    out: (line) => {
      if (!json) write(`${line}\n`);
    },
    result: (value, human) => write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`),
    container: async () => {
      // Loaded on first use: the container pulls in Temporal, oidc-provider and the ORM (over a second of
      // start-up), which `--help` and a usage error never need.
      const { createContainer } = await import('../container.ts');
      container ??= await createContainer(await resolveLocalConfig(loaded), {
        log: createLogger({ level: 'warn', name: 'cli' }),
        migrate: false,
        lazyTemporal: true,
      });
      return container;
    },
  };
  try {
    await command.run(io, options);
    return 0;
  } catch (error) {
    if (error instanceof CliFailure) return 1;
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nUsage: campaignctl ${command.usage}\n`);
      return 2;
    }
    const { line, exitCode } = describeFailure(error, loaded, Boolean(options.debug));
    process.stderr.write(`${line}\n`);
    return exitCode;
  } finally {
    await container?.close();
    await closeLoopbackAwareFetch();
  }
}
