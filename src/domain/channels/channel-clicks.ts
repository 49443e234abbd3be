/**
 * Visits through a post's attributed link. The brand host's hand-off (`/_cp/go?c=&v=&p=`) records one per
 * visit, with the visitor's anonymous session, so that the session's later conversions attribute to the post
 * (the analytics rollup does that, `domain/analytics/rollups.ts`), and sends the visitor on.
 *
 * Only a real, published post of the site's workspace, made from the same campaign and variant the link names,
 * counts: a forged or mistyped `p` records nothing (the hand-off then behaves as it does without one).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

export interface ChannelClick {
  workspaceId: string;
  postId: string;
  campaignId: string;
  variantId: string;
  sessionId: string;
  occurredAt: Date;
}

export interface ChannelClickRecorder {
  /** Records the visit; false when the post is not one whose link this could be. */
  record(click: ChannelClick): Promise<boolean>;
}

const RECORD_SQL = `with post as (
    select id, network, campaign_id, variant_id from channel_posts
    where id = $2 and workspace_id = $1 and external_id is not null and campaign_id = $3 and variant_id = $4
  ), click as (
    insert into analytics_channel_clicks (click_id, workspace_id, post_id, network, campaign_id, variant_id, session_id, occurred_at)
    select gen_random_uuid(), $1, post.id, post.network, post.campaign_id, post.variant_id, $5, $6 from post
    returning post_id, network, campaign_id, variant_id, session_id, occurred_at
  ), session as (
    insert into analytics_channel_sessions (workspace_id, session_id, post_id, network, campaign_id, variant_id, first_click_at)
    select $1, session_id, post_id, network, campaign_id, variant_id, occurred_at from click
    on conflict (workspace_id, session_id, post_id) do nothing
  )
  select count(*)::int as recorded from click`;

export function createChannelClickRecorder(orm: MikroORM): ChannelClickRecorder {
  return {
    async record(click) {
      // Raw SQL with the workspace bound: the site's workspace comes from its host, not from a scope.
      const result = await orm.em
        .getConnection()
        .getClient()
        .executeQuery<{ recorded: number }>(
          CompiledQuery.raw(RECORD_SQL, [
            click.workspaceId,
            click.postId,
            click.campaignId,
            click.variantId,
            click.sessionId,
            click.occurredAt.toISOString(),
          ]),
        );
      return (result.rows[0]?.recorded ?? 0) > 0;
    },
  };
}
