/**
 * Connecting an account through its network's OAuth (Meta, Reddit, TikTok): the one place that starts an
 * authorization and checks what comes back. A person (a workspace admin) clicks "Connect" in the dashboard;
 * `begin` builds the network's authorization URL with a fresh `state` and PKCE pair and a sealed *flow* that
 * the dashboard keeps in a short-lived cookie; the network sends the person back to the platform's callback
 * (`redirectUri`, one fixed URL per network that the operator registers with the network's app), and `finish`
 * opens the flow, checks it, and exchanges the code for the accounts the person granted.
 *
 * - The flow is sealed with the platform's credential keys and bound to the person who started it: a flow
 *   cookie replayed by someone else does not open. It names the workspace, so the callback (which carries no
 *   workspace) connects the accounts where the person asked, and only if they may still manage its channels
 *   (checked by the caller with the current role).
 * - `state` is compared in constant time; a flow older than `FLOW_TTL_SECONDS` is refused, as is a callback for
 *   another network than the flow's.
 * - A person who pressed Cancel on the network's page (`error=access_denied`) is told so, not shown a failure.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../errors.ts';
import { createSecretBox } from '../shared/secret-box.ts';
import type { ChannelAdapters } from './adapters.ts';
import type { ConnectedIdentity } from './channel-adapter.ts';
import { isChannelNetwork, NETWORK_NAMES, type ChannelNetwork } from './channel-networks.ts';

export const OAUTH_FLOW_PURPOSE = 'channel-oauth-flow';
/** Long enough to sign in to the network and read its consent page; short enough that a lost cookie is harmless. */
export const FLOW_TTL_SECONDS = 15 * 60;

interface SealedFlow {
  network: ChannelNetwork;
  workspaceId: string;
  state: string;
  codeVerifier: string;
  expiresAt: number;
}

export interface OAuthFlowStart {
  authorizationUrl: string;
  /** The sealed flow, for the dashboard's short-lived cookie. */
  flow: string;
}

export interface OAuthCallback {
  network: string;
  /** The cookie's value (undefined when the browser did not send it back). */
  flow: string | undefined;
  /** The callback's query: `code` and `state`, or `error` (and `error_description`). */
  query: Record<string, unknown>;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export type ChannelOAuth = ReturnType<typeof createChannelOAuth>;

export function createChannelOAuth(options: {
  adapters: ChannelAdapters;
  credentialKeys: readonly string[];
  /** The callback URL of a network: the operator registers exactly this with the network's app. */
  redirectUri(network: ChannelNetwork): string;
  now?: () => Date;
}) {
  const box = createSecretBox(options.credentialKeys, OAUTH_FLOW_PURPOSE);
  const now = options.now ?? (() => new Date());

  function oauthOf(network: string) {
    if (!isChannelNetwork(network)) {
      throw new ValidationError(`Unknown network ${network}`, { issues: [{ field: 'network', message: 'unknown' }] });
    }
    const oauth = options.adapters.get(network).oauth;
    if (!oauth) {
      throw new ValidationError(`${NETWORK_NAMES[network]} accounts connect with an app password, not OAuth`, {
        issues: [{ field: 'network', message: 'connects with an app password' }],
      });
    }
    return { network, oauth };
  }

  return {
    /** The callback URL of a network (shown to operators, sent to the network). */
    redirectUri: options.redirectUri,

    /** Starts connecting an account of `network` to `workspaceId`, for the person `actor`. */
    begin(input: { network: string; workspaceId: string; actor: string }): OAuthFlowStart {
      const { network, oauth } = oauthOf(input.network);
      const state = base64url(randomBytes(24));
      const codeVerifier = base64url(randomBytes(48));
      const codeChallenge = base64url(createHash('sha256').update(codeVerifier).digest());
      const flow: SealedFlow = {
        network,
        workspaceId: input.workspaceId,
        state,
        codeVerifier,
        expiresAt: now().getTime() + FLOW_TTL_SECONDS * 1000,
      };
      return {
        authorizationUrl: oauth.authorizationUrl({ state, redirectUri: options.redirectUri(network), codeChallenge }),
        flow: box.seal(JSON.stringify(flow), input.actor),
      };
    },

    /** The workspace a flow cookie was started for, if it opens for `actor` (checked again by `finish`). */
    workspaceOf(flow: string | undefined, actor: string): string | null {
      try {
        return (JSON.parse(box.open(flow ?? '', actor).plaintext) as SealedFlow).workspaceId;
      } catch {
        return null;
      }
    },

    /**
     * Checks a callback against the flow the same person started and exchanges its code. Returns the workspace
     * the flow was for and the accounts granted; throws `ValidationError` saying what went wrong otherwise.
     */
    async finish(
      input: OAuthCallback & { actor: string },
    ): Promise<{ network: ChannelNetwork; workspaceId: string; identities: ConnectedIdentity[] }> {
      const { network, oauth } = oauthOf(input.network);
      const name = NETWORK_NAMES[network];
      const restart = `Start again from Channels → Connect ${name}.`;
      let flow: SealedFlow;
      try {
        flow = JSON.parse(box.open(input.flow ?? '', input.actor).plaintext) as SealedFlow;
      } catch {
        throw new ValidationError(`This ${name} sign-in was not started here, or by someone else. ${restart}`, {
          field: 'state',
        });
      }
      if (flow.network !== network) {
        throw new ValidationError(
          `This sign-in was started for ${NETWORK_NAMES[flow.network]}, not ${name}. ${restart}`,
          {
            field: 'state',
          },
        );
      }
      if (flow.expiresAt < now().getTime()) {
        throw new ValidationError(`The ${name} sign-in took longer than ${FLOW_TTL_SECONDS / 60} minutes. ${restart}`, {
          field: 'state',
        });
      }
      const state = typeof input.query.state === 'string' ? input.query.state : '';
      if (!sameSecret(state, flow.state)) {
        throw new ValidationError(`${name} sent back a sign-in this page did not start. ${restart}`, {
          field: 'state',
        });
      }
      if (typeof input.query.error === 'string') {
        const denied = input.query.error === 'access_denied';
        const description = typeof input.query.error_description === 'string' ? input.query.error_description : '';
        throw new ValidationError(
          denied
            ? `No account was connected: access was not granted on ${name}.`
            : `${name} refused the sign-in (${input.query.error}${description ? `: ${description.slice(0, 200)}` : ''}). ${restart}`,
          // A person who pressed Cancel made a choice; the page says so without an error.
          { field: 'code', declined: denied },
        );
      }
      const code = typeof input.query.code === 'string' ? input.query.code : '';
      if (!code) throw new ValidationError(`${name} sent no authorization code back. ${restart}`, { field: 'code' });
      const identities = await oauth.completeAuthorization({
        code,
        redirectUri: options.redirectUri(network),
        codeVerifier: flow.codeVerifier,
      });
      if (identities.length === 0) {
        throw new ValidationError(
          `The ${name} sign-in granted no account the platform can post to.${network === 'meta' ? ' Choose at least one Facebook Page when Meta asks (an Instagram account is reached through the Page it is linked to).' : ''}`,
          { field: 'code' },
        );
      }
      return { network, workspaceId: flow.workspaceId, identities };
    },
  };
}
