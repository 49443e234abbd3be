/**
 * Names for the ids the audit log and the credit ledger record: who acted (`user:<id>`, `key:<id>`,
 * `client:<id>/user:<id>`, `operator`, `workflow:<job id>`, `anonymous`) and what they acted on. People read
 * "Ada Lovelace (ada@example.com)" or "API key “ci”", never a raw id; an id whose row is gone keeps a short,
 * honest label ("deleted API key").
 *
 * One query per kind of id, for a whole page of rows at once. Workspace-owned rows (keys, apps, jobs,
 * campaigns, invitations) are looked up within the page's workspace only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface PartyName {
  /** What to show first: a person's name, a key's or an app's name. */
  label: string;
  /** What to show under it, smaller: an email, "API key", "for Ada (ada@…)". */
  detail: string | null;
  kind: 'person' | 'api_key' | 'app' | 'operator' | 'workflow' | 'anonymous' | 'thing' | 'unknown';
}

/** The bound list of ids, split by PostgreSQL (see `namesOfIds`). */
const IDS = "string_to_array(?, ',')";

const PATTERNS = {
  user: /^usr_[0-9A-Z]{26}$/,
  key: /^key_[0-9A-Z]{26}$/,
  job: /^job_[0-9A-Z]{26}$/,
  campaign: /^cmp_[0-9A-Z]{26}$/,
  workspace: /^ws_[0-9A-Z]{26}$/,
  invitation: /^inv_[0-9A-Z]{26}$/,
};

/** `campaign_generation` → "campaign generation". */
export const humanise = (value: string) => value.replace(/[_.]+/g, ' ').trim();

type Row = Record<string, string | null>;

export function createPartyNames() {
  async function rows(em: EntityManager, sql: string, params: unknown[]): Promise<Row[]> {
    return em.getConnection().execute<Row[]>(sql, params, 'all', em.getTransactionContext());
  }

  /** Names of every id in `ids` that has a name (users, keys, jobs, campaigns, workspaces, invitations). */
  async function namesOfIds(em: EntityManager, workspaceId: string, ids: Iterable<string>) {
    const byKind = Object.fromEntries(Object.keys(PATTERNS).map((kind) => [kind, new Set<string>()])) as Record<
      keyof typeof PATTERNS,
      Set<string>
    >;
    for (const id of ids) {
      for (const [kind, pattern] of Object.entries(PATTERNS)) {
        if (pattern.test(id)) byKind[kind as keyof typeof PATTERNS].add(id);
      }
    }
    const names = new Map<string, PartyName>();
    // Ids (and client ids, below) travel as one comma-joined text parameter split by PostgreSQL: ids never hold
    // a comma, and a single bound parameter keeps the statement the same whatever the page's size.
    const list = (set: Set<string>) => [...set].join(',');
    const queries: Promise<void>[] = [];
    if (byKind.user.size)
      queries.push(
        rows(em, `select id, name, email from users where id = any(${IDS})`, [list(byKind.user)]).then((found) => {
          for (const r of found) names.set(r.id!, { label: r.name!, detail: r.email ?? null, kind: 'person' });
        }),
      );
    if (byKind.key.size)
      queries.push(
        rows(em, `select id, name, role::text as role from api_keys where workspace_id = ? and id = any(${IDS})`, [
          workspaceId,
          list(byKind.key),
        ]).then((found) => {
          for (const r of found)
            names.set(r.id!, { label: `API key “${r.name}”`, detail: `${r.role} key`, kind: 'api_key' });
        }),
      );
    if (byKind.job.size)
      queries.push(
        rows(em, `select id, kind from jobs where workspace_id = ? and id = any(${IDS})`, [
          workspaceId,
          list(byKind.job),
        ]).then((found) => {
          for (const r of found) names.set(r.id!, { label: `${humanise(r.kind!)} job`, detail: null, kind: 'thing' });
        }),
      );
    if (byKind.campaign.size)
      queries.push(
        rows(em, `select id, name from campaigns where workspace_id = ? and id = any(${IDS})`, [
          workspaceId,
          list(byKind.campaign),
        ]).then((found) => {
          for (const r of found) names.set(r.id!, { label: `campaign “${r.name}”`, detail: null, kind: 'thing' });
        }),
      );
    if (byKind.workspace.size)
      queries.push(
        rows(em, 'select id, name from workspaces where id = ?', [workspaceId]).then((found) => {
          for (const r of found) names.set(r.id!, { label: `workspace “${r.name}”`, detail: null, kind: 'thing' });
        }),
      );
    if (byKind.invitation.size)
      queries.push(
        rows(em, `select id, email, role::text as role from invitations where workspace_id = ? and id = any(${IDS})`, [
          workspaceId,
          list(byKind.invitation),
        ]).then((found) => {
          for (const r of found)
            names.set(r.id!, { label: `invitation of ${r.email}`, detail: `as ${r.role}`, kind: 'thing' });
        }),
      );
    await Promise.all(queries);
    return names;
  }

  /** App names of OAuth clients connected to the workspace. */
  async function appNames(em: EntityManager, workspaceId: string, clientIds: string[]): Promise<Map<string, string>> {
    if (!clientIds.length) return new Map();
    const found = await rows(
      em,
      `select distinct on (client_id) client_id, client_name from oauth_grant_bindings
       where workspace_id = ? and client_id = any(string_to_array(?, chr(10))) order by client_id, created_at desc`,
      [workspaceId, clientIds.join('\n')], // client ids may be URLs: split on newlines
    );
    return new Map(found.map((r) => [r.client_id!, r.client_name ?? 'an OAuth app']));
  }

  return {
    namesOfIds,

    /**
     * The actors a workspace's log can be filtered by, named: its members, its API keys (disabled ones too, their
     * past actions stay), the apps people connected, the operator and the platform's workflows.
     */
    async knownActors(em: EntityManager, workspaceId: string): Promise<string[]> {
      const [members, keys, apps] = await Promise.all([
        rows(em, 'select user_id from memberships where workspace_id = ? order by created_at', [workspaceId]),
        rows(em, 'select id from api_keys where workspace_id = ? order by created_at', [workspaceId]),
        rows(em, 'select distinct client_id, user_id from oauth_grant_bindings where workspace_id = ?', [workspaceId]),
      ]);
      return [
        ...members.map((r) => `user:${r.user_id}`),
        ...keys.map((r) => `key:${r.id}`),
        ...apps.map((r) => `client:${r.client_id}/user:${r.user_id}`),
        'operator',
      ];
    },

    /**
     * A name for each actor string, e.g. `client:abc/user:usr_1` → "Claude Desktop", "for Ada (ada@…)".
     * Actors it cannot parse are shown as they are, marked unknown.
     */
    async actors(em: EntityManager, workspaceId: string, actors: Iterable<string>): Promise<Map<string, PartyName>> {
      const unique = [...new Set(actors)];
      const ids = new Set<string>();
      const clients = new Set<string>();
      for (const actor of unique) {
        const client = /^client:(.*)\/user:(.*)$/.exec(actor);
        if (client) {
          clients.add(client[1]!);
          ids.add(client[2]!);
        } else if (/^(user|key|workflow):/.test(actor)) ids.add(actor.slice(actor.indexOf(':') + 1));
      }
      const [names, apps] = await Promise.all([
        namesOfIds(em, workspaceId, ids),
        appNames(em, workspaceId, [...clients]),
      ]);
      const result = new Map<string, PartyName>();
      for (const actor of unique) {
        const [kind, ...restParts] = actor.split(':');
        const rest = restParts.join(':');
        const client = /^client:(.*)\/user:(.*)$/.exec(actor);
        let name: PartyName;
        if (client) {
          const person = names.get(client[2]!);
          name = {
            label: apps.get(client[1]!) ?? 'an OAuth app',
            detail: person ? `app, for ${person.label} (${person.detail})` : 'app, for a former member',
            kind: 'app',
          };
        } else if (kind === 'user') {
          name = names.get(rest) ?? { label: 'a deleted account', detail: null, kind: 'person' };
        } else if (kind === 'key') {
          name = names.get(rest) ?? { label: 'a deleted API key', detail: null, kind: 'api_key' };
        } else if (kind === 'workflow') {
          const job = names.get(rest);
          name = job
            ? { label: `Platform: ${job.label}`, detail: 'background job', kind: 'workflow' }
            : { label: `Platform: ${humanise(rest)}`, detail: 'background process', kind: 'workflow' };
        } else if (actor === 'operator') {
          name = { label: 'Platform operator', detail: 'campaignctl', kind: 'operator' };
        } else if (actor === 'anonymous') {
          name = { label: 'Not signed in', detail: null, kind: 'anonymous' };
        } else {
          name = { label: actor, detail: null, kind: 'unknown' };
        }
        result.set(actor, name);
      }
      return result;
    },
  };
}

export type PartyNames = ReturnType<typeof createPartyNames>;
