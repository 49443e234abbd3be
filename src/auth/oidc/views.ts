/** Pages of the authorization server: sign-in, consent with the workspace picker, and errors. */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { html, page } from '../../views/html.ts';
import type { Role } from '../../domain/workspaces/roles.ts';

export interface ConsentView {
  uid: string;
  csrf: string;
  clientName: string;
  clientId: string;
  redirectHost: string;
  /** Every redirect lands on the person's own device (loopback or an app's private-use scheme). */
  onDeviceOnly: boolean;
  scopes: string[];
  offlineAccess: boolean;
  userEmail: string;
  /** The slug (unique) tells apart two workspaces of the same name owned by different people. */
  workspaces: { id: string; name: string; slug?: string; role: Role }[];
  error?: string;
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know which account on this platform you are (an account id only: not your name or email)',
  'mcp:read': 'Read campaigns, products, surfaces, brand material, analytics and jobs in the workspace',
  'mcp:write': 'Change them, publish and deploy, and start work that spends credits — as far as your role allows',
  offline_access:
    'Stay connected when you are away, until you disconnect it under Connected apps (it receives a refresh token)',
};

export function loginPage(view: {
  uid: string;
  csrf: string;
  clientName: string;
  email?: string;
  error?: string;
}): string {
  return page({
    title: 'Sign in',
    notices: view.error ? [{ kind: 'error', text: view.error }] : [],
    body: html`<div class="card">
      <h1>Sign in to continue</h1>
      <p><strong>${view.clientName}</strong> wants to connect to your campaign platform account.</p>
      <form method="post" action="/interaction/${view.uid}/login">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">Sign in</button></p>
      </form>
      <form method="post" action="/interaction/${view.uid}/abort">
        <input type="hidden" name="_csrf" value="${view.csrf}" /><button class="secondary" type="submit">Cancel</button>
      </form>
    </div>`,
  });
}

export function consentPage(view: ConsentView): string {
  const notices: { kind: 'ok' | 'error' | 'warn'; text: string }[] = [];
  if (view.error) notices.push({ kind: 'error', text: view.error });
  if (view.onDeviceOnly) {
    notices.push({
      kind: 'warn',
      // Any program on the device can listen on a loopback port or claim an app scheme (RFC 8252 §8.6).
      text: 'This app receives its answer on your own computer (a loopback address or an app link). Continue only if you started this connection yourself just now.',
    });
  }
  const scopes = [...view.scopes, ...(view.offlineAccess ? ['offline_access'] : [])];
  return page({
    title: 'Connect an app',
    notices,
    body: html`<div class="card">
      <h1>Connect ${view.clientName}?</h1>
      <p>Signed in as <strong>${view.userEmail}</strong>.</p>
      <p>
        <strong>${view.clientName}</strong> <span class="muted">(client <code>${view.clientId}</code>)</span> will
        receive access at <strong>${view.redirectHost}</strong>.
      </p>
      <h2>It will be able to</h2>
      <ul>
        ${scopes.map((scope) => html`<li>${SCOPE_TEXT[scope] ?? scope}</li>`)}
      </ul>
      ${
        view.workspaces.length === 0
          ? html`<p role="alert">
                You are not a member of any workspace yet. Create one in the dashboard first, then connect again.
              </p>
              <form method="post" action="/interaction/${view.uid}/abort">
                <input type="hidden" name="_csrf" value="${view.csrf}" /><button type="submit">Cancel</button>
              </form>`
          : html`<form method="post" action="/interaction/${view.uid}/confirm">
                <input type="hidden" name="_csrf" value="${view.csrf}" />
                <fieldset>
                  <legend>Choose the one workspace this connection may use</legend>
                  ${view.workspaces.map(
                    (workspace, index) =>
                      html`<div>
                        <input
                          type="radio"
                          id="ws-${workspace.id}"
                          name="workspace"
                          value="${workspace.id}"
                          ${index === 0 && view.workspaces.length === 1 ? html`checked` : ''}
                          required
                        />
                        <label class="inline" for="ws-${workspace.id}"
                          >${workspace.name}
                          <span class="muted"
                            >(your role:
                            ${workspace.role}${workspace.slug ? html` · address ${workspace.slug}` : ''})</span
                          ></label
                        >
                      </div>`,
                  )}
                </fieldset>
                <p class="muted">
                  The app acts with your role in that workspace and sees nothing of your other workspaces. You can
                  disconnect it any time under Connected apps.
                </p>
                <p class="row"><button type="submit" name="decision" value="allow">Allow</button></p>
              </form>
              <form method="post" action="/interaction/${view.uid}/abort">
                <input type="hidden" name="_csrf" value="${view.csrf}" /><button class="secondary" type="submit">
                  Deny
                </button>
              </form>`
      }
    </div>`,
  });
}

/** oidc-provider's user-facing errors (bad authorization requests): a plain page, no raw internals. */
export function renderOAuthError(ctx: KoaContextWithOIDC, out: Record<string, unknown>, _error: unknown): void {
  ctx.type = 'html';
  ctx.body = page({
    title: 'Authorization failed',
    notices: [
      { kind: 'error', text: String(out.error_description ?? out.error ?? 'The request could not be processed') },
    ],
    body: html`<div class="card">
      <h1>This authorization request cannot be completed</h1>
      <p>Error: <code>${String(out.error ?? 'server_error')}</code></p>
      <p>Go back to the app that sent you here and try connecting again.</p>
    </div>`,
  });
}
