/**
 * The page the ask box's form posts to (`POST /ask` with a form body): the visitor's question and the
 * concierge's answer, with its sources as links, the follow-up questions as buttons, and, when it does not
 * know, the ways to ask a person. It also answers the questions that could not be asked (empty, too long,
 * too many in a minute, a concierge that is off) as pages a person can read and act on, never as JSON.
 *
 * Built from the same content model and chrome as every other page, so it is the brand's own page; it has
 * no markdown twin and no slot (it is rendered per request, not stored).
 */
import type { PublishedSite } from '../site-model.ts';
import type { AnswerView, AskContext, Block, PageContent } from './content.ts';
import { writeHtmlPage } from './html.ts';
import { contactFacts } from './pages.ts';
import type { SiteIndex } from './site-index.ts';
import { siteChrome } from './chrome.ts';

/** Why a question got no answer from the concierge, as the visitor is told it. */
export type AskProblem =
  | { kind: 'empty' }
  | { kind: 'invalid'; message: string }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'disabled' };

export interface AskPageInput {
  /** The question as asked (trimmed), '' when there was none. */
  question: string;
  reply: AnswerView | null;
  problem: AskProblem | null;
  context: AskContext;
}

/** A few of the brand's own FAQ questions, as examples of what can be asked. */
function exampleQuestions(index: SiteIndex): string[] {
  return index.site.snapshot.brand.concierge.faq.slice(0, 3).map((entry) => entry.question);
}

function problemBlocks(index: SiteIndex, problem: AskProblem): { title: string; intro: Block[] } {
  switch (problem.kind) {
    case 'empty': {
      const examples = exampleQuestions(index);
      const example = examples.length > 0 ? ` For example: “${examples[0]}”` : '';
      return {
        title: 'What would you like to know?',
        intro: [{ kind: 'text', text: `Type your question in the box below and press Ask.${example}`, lead: true }],
      };
    }
    case 'invalid':
      return {
        title: 'That question could not be asked',
        intro: [{ kind: 'text', text: problem.message, lead: true }],
      };
    case 'rate_limited':
      return {
        title: 'One moment, please',
        intro: [
          {
            kind: 'text',
            text: `That was a lot of questions in a short time. Please ask again in ${problem.retryAfterSeconds} second${problem.retryAfterSeconds === 1 ? '' : 's'}.`,
            lead: true,
          },
        ],
      };
    case 'disabled': {
      const contact = contactFacts(index);
      return {
        title: 'Questions are closed',
        intro: [
          {
            kind: 'text',
            text: `${index.brandName} is not answering questions on this site right now.`,
            lead: true,
          },
          ...(contact.length > 0 ? [{ kind: 'facts' as const, facts: contact }] : []),
        ],
      };
    }
  }
}

export function askPageContent(index: SiteIndex, input: AskPageInput): PageContent {
  const base = {
    path: '/ask',
    description: null,
    lastModified: index.publishedAt,
    media: [],
    titleStyle: 'display' as const,
    feature: null,
    blocks: [],
    structuredData: [],
    askBox: true,
  };
  if (input.problem) return { ...base, ...problemBlocks(index, input.problem) };
  const reply: AnswerView = input.reply ?? {
    answered: false,
    answer: '',
    segments: [],
    sources: [],
    suggestions: [],
  };
  return {
    ...base,
    title: reply.answered ? 'Here is what we found' : 'We don’t know that yet',
    intro: [
      {
        kind: 'answer',
        question: input.question,
        reply,
        context: input.context,
        origin: index.origin,
        contact: contactFacts(index),
      },
    ],
  };
}

/** The whole HTML document of the ask page for one request. */
export function renderAskPage(site: PublishedSite, input: AskPageInput): string {
  const { index, chrome } = siteChrome(site);
  return writeHtmlPage(askPageContent(index, input), chrome, input.context)
    .filter((part): part is string => typeof part === 'string')
    .join('');
}
