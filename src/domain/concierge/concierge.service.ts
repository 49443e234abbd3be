/**
 * The brand-site concierge: answers a visitor's question from the brand's published content only. It reads
 * the publication it is given and changes nothing; the one side effect of a question, recording it for the
 * marketer's insights, is the caller's (fire-and-forget) business, built here by `conciergeQuestionEvent`.
 */
import { AppError } from '../../errors.ts';
import type { PublishedSite } from '../../public/brand-site/site-model.ts';
import { newEventId } from '../analytics/event-ids.ts';
import type { SiteEvent } from '../analytics/site-events.ts';
import { newConversationId, type AskRequest } from './ask-request.ts';
import { createContentIndexCache } from './content-index.ts';
import { createExtractiveEngine, type AnswerSegment, type AnswerSource, type ConciergeEngine } from './engine.ts';

/** The `/ask` response body. */
export interface AskResponse {
  answer: string;
  answered: boolean;
  sources: AnswerSource[];
  suggestions: string[];
  conversationId: string;
}

/** An answer plus its parts, which renderings that must escape quoted content need (markdown). */
export interface ConciergeReply extends AskResponse {
  segments: AnswerSegment[];
}

/** The brand turned its concierge off (`manage_brand` concierge settings, `enabled: false`). */
export class ConciergeDisabledError extends AppError {
  constructor() {
    super('concierge_disabled', 'The concierge is turned off for this site');
  }
}

/** Questions are stored for insights trimmed to this many characters. */
export const RECORDED_QUERY_CHARS = 300;

export function isConciergeEnabled(site: PublishedSite): boolean {
  return site.snapshot.brand.concierge.enabled !== false;
}

export function createConciergeService(deps: { engine?: ConciergeEngine; now?: () => Date } = {}) {
  const engine = deps.engine ?? createExtractiveEngine(createContentIndexCache());
  const now = deps.now ?? (() => new Date());

  return {
    engine,

    /** Answers one question on one publication. Throws `ConciergeDisabledError` when the concierge is off. */
    async ask(site: PublishedSite, request: AskRequest): Promise<ConciergeReply> {
      if (!isConciergeEnabled(site)) throw new ConciergeDisabledError();
      const result = await engine.answer(site, { text: request.query, previous: request.previous }, now());
      return {
        answer: result.answer,
        answered: result.answered,
        sources: result.sources,
        suggestions: result.suggestions,
        conversationId: request.conversationId ?? newConversationId(),
        segments: result.segments,
      };
    },
  };
}

export type ConciergeService = ReturnType<typeof createConciergeService>;

/** The JSON body of an answer (the reply without its rendering parts). */
export function askResponseBody(reply: ConciergeReply): AskResponse {
  return {
    answer: reply.answer,
    answered: reply.answered,
    sources: reply.sources,
    suggestions: reply.suggestions,
    conversationId: reply.conversationId,
  };
}

/**
 * Quoted content as inert markdown text: characters that would make a link, an image, emphasis, code, HTML
 * or a table are escaped, and so is a block marker at the start, so brand text can never turn into markup
 * (an image that phones home, a link that was not on the site).
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>|~!]/g, '\\$&')
    .replace(/^(#{1,6}\s|[-+]\s|\d+[.)]\s)/, '\\$1');
}

function markdownUrl(url: string): string {
  return url.replace(/[\s()<>]/g, (char) => encodeURIComponent(char));
}

/** The answer as markdown: the answer text with its `[n]` markers, then the sources as a numbered list. */
export function answerMarkdown(reply: ConciergeReply): string {
  const lines: string[] = [];
  lines.push(
    reply.segments.length > 0
      ? reply.segments.map((segment) => `${escapeMarkdown(segment.text)} \\[${segment.source}\\]`).join(' ')
      : escapeMarkdown(reply.answer),
  );
  if (reply.sources.length > 0) {
    lines.push('', '## Sources', '');
    reply.sources.forEach((source, index) => {
      lines.push(`${index + 1}. [${escapeMarkdown(source.title)}](${markdownUrl(source.url)})`);
    });
  }
  if (reply.suggestions.length > 0) {
    lines.push('', '## You could ask', '');
    for (const suggestion of reply.suggestions) lines.push(`- ${escapeMarkdown(suggestion)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The analytics event for one question: anonymous (the first-party session id at most, never an address),
 * with whether it was answered and the question trimmed to 300 characters, so unanswered questions can
 * become campaign briefs.
 */
export function conciergeQuestionEvent(input: {
  site: PublishedSite;
  sessionId: string | null;
  query: string;
  answered: boolean;
  at: Date;
}): SiteEvent {
  return {
    eventId: newEventId(),
    workspaceId: input.site.workspaceId,
    type: 'concierge_question',
    occurredAt: input.at,
    sessionId: input.sessionId || null,
    properties: { answered: input.answered, query: input.query.trim().slice(0, RECORDED_QUERY_CHARS) },
  };
}
