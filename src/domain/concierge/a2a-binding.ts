/**
 * The concierge as an A2A agent over JSON-RPC (the binding the brand's agent card declares at `/a2a`), built
 * from the A2A SDK's framework-agnostic pieces: `DefaultRequestHandler` + `JsonRpcTransportHandler` (A2A 1.0,
 * `SendMessage`) and the SDK's v0.3 compatibility handler (`message/send`), with an `AgentExecutor` that
 * answers every message with one agent `Message`: a markdown text part (the answer, then its sources) and a
 * data part carrying the same structured answer as `/ask`.
 *
 * The agent never creates tasks, so nothing accumulates in the (in-memory) task store; task, streaming and
 * push-notification methods get the SDK's own errors. The publication and the question-recording callback travel in
 * the per-call `ServerCallContext` state, so one handler serves every brand host.
 */
import { A2A_VERSION_HEADER, Extensions, Role, type AgentCard, type AgentInterface, type Message } from '@a2a-js/sdk';
import {
  A2A_ERROR_CODE,
  ContentTypeNotSupportedError,
  JsonRpcRequestMalformedError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  UnauthenticatedUser,
  validateVersion,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.ts';
import { BRAND_PATHS, type PublishedSite } from '../../public/brand-site/site-model.ts';
import { AppError } from '../../errors.ts';
import { parseAskRequest } from './ask-request.ts';
import { answerMarkdown, askResponseBody, type ConciergeReply, type ConciergeService } from './concierge.service.ts';

/** The A2A protocol versions the binding speaks (1.0 natively, 0.3 through the SDK's compat layer). */
export const A2A_VERSIONS = ['1.0', '0.3'] as const;

/** The `supportedInterfaces` a brand's agent card declares for the concierge (first preferred). */
export function conciergeAgentInterfaces(origin: string): AgentInterface[] {
  return A2A_VERSIONS.map((protocolVersion) => ({
    url: origin + BRAND_PATHS.a2a,
    protocolBinding: 'JSONRPC',
    protocolVersion,
    tenant: '',
  }));
}

/** The skill the concierge offers (spec G rule 1 names it `ask-venue`). */
export const CONCIERGE_SKILL = {
  id: 'ask-venue',
  name: 'Ask the brand',
  description: "Answers a visitor's question from the brand's published content, with cited sources.",
  tags: ['brand', 'faq', 'products', 'campaigns'],
  examples: ['How much is the linen shirt?', 'Do you ship internationally?'],
  inputModes: ['text/plain'],
  outputModes: ['text/markdown', 'application/json'],
  securityRequirements: [],
};

/**
 * The card the request handler validates against. It is not served: each brand host serves its own card
 * (rendered with `conciergeAgentInterfaces`); only versions, capabilities and extensions matter here.
 */
const HANDLER_CARD: AgentCard = {
  name: 'Brand concierge',
  description: "Answers questions from a brand's published content.",
  supportedInterfaces: conciergeAgentInterfaces(''),
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/markdown', 'application/json'],
  skills: [CONCIERGE_SKILL],
  signatures: [],
};

/** What one `/a2a` call needs besides the JSON-RPC request: the publication, and what to do with a reply. */
export interface ConciergeCall {
  site: PublishedSite;
  /** Called once per answered question (to record it); never allowed to fail the answer. */
  onReply(question: string, reply: ConciergeReply): void;
}

const CALL_STATE_KEY = 'concierge.call';

function textOf(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter(Boolean)
    .join('\n');
}

/** Earlier questions a client may pass as `metadata.prev` (the same shapes `/ask` accepts). */
function previousOf(message: Message): unknown {
  const metadata = message.metadata as Record<string, unknown> | undefined;
  return metadata?.prev;
}

function agentMessage(contextId: string, text: string, data: Record<string, unknown> | null): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_AGENT,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/markdown' },
      ...(data
        ? [
            {
              content: { $case: 'data' as const, value: data },
              metadata: undefined,
              filename: '',
              mediaType: 'application/json',
            },
          ]
        : []),
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export interface A2aHttpResult {
  status: number;
  body: unknown;
}

export function createConciergeA2aBinding(deps: { concierge: ConciergeService; log: Logger }) {
  const executor: AgentExecutor = {
    async execute(requestContext, eventBus) {
      const call = requestContext.context.state.get(CALL_STATE_KEY) as ConciergeCall;
      const contextId = requestContext.contextId;
      let reply: Message;
      try {
        const request = parseAskRequest({
          query: textOf(requestContext.userMessage),
          prev: previousOf(requestContext.userMessage),
          conversationId: contextId,
        });
        const answer = await deps.concierge.ask(call.site, request);
        call.onReply(request.query, answer);
        // The A2A context is the conversation, whatever id the client sent.
        reply = agentMessage(contextId, answerMarkdown(answer), {
          ...askResponseBody(answer),
          conversationId: contextId,
        });
      } catch (error) {
        // Every outcome is a message: a failed executor would make the SDK store a failed task per request.
        // The A2A protocol's edge (the SDK renders the envelope): our errors keep their code and safe message.
        if (error instanceof AppError) {
          reply = agentMessage(contextId, `${error.message}.`, {
            error: error.code,
            error_description: error.message,
          });
        } else {
          deps.log.error({ err: error, workspaceId: call.site.workspaceId }, 'concierge A2A answer failed');
          reply = agentMessage(contextId, 'Sorry, the concierge could not answer just now. Please try again.', {
            error: 'internal_error',
          });
        }
      }
      eventBus.publish(AgentEvent.message(reply));
      eventBus.finished();
    },
    // Answers are immediate messages: there is never a running task to cancel.
    async cancelTask() {},
  };
  const requestHandler = new DefaultRequestHandler(HANDLER_CARD, new InMemoryTaskStore(), executor);
  const v1 = new JsonRpcTransportHandler(requestHandler);
  const legacy = new LegacyJsonRpcTransportHandler(requestHandler);

  const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };

  return {
    /**
     * Handles one JSON-RPC request: its raw body text and headers (`contentType` null when the request had
     * none). Answers with the HTTP status and JSON body to send.
     */
    async handle(
      rawBody: string,
      headers: Record<string, string | string[] | undefined>,
      contentType: string | null,
      call: ConciergeCall,
    ): Promise<A2aHttpResult> {
      let body: unknown;
      let parseError: unknown = null;
      try {
        body = JSON.parse(rawBody);
      } catch {
        parseError = new JsonRpcRequestMalformedError({
          message: 'Invalid JSON payload.',
          envelopeCode: A2A_ERROR_CODE.PARSE_ERROR,
        });
      }
      const method = typeof body === 'object' && body !== null ? (body as { method?: unknown }).method : undefined;
      const versionHeader = header(headers, A2A_VERSION_HEADER)?.trim();
      // A2A: no `A2A-Version` means 0.3. The method names of the two versions never overlap, so a versionless
      // `SendMessage` is plainly 1.0; answering it beats a method-not-found.
      const version = versionHeader || (isV1JsonRpcMethod(method) && !isLegacyJsonRpcMethod(method) ? '1.0' : '0.3');
      const useLegacy = version === '0.3';
      const mapError = useLegacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
        : JsonRpcTransportHandler.mapToJSONRPCError;
      const id = typeof body === 'object' && body !== null ? ((body as { id?: unknown }).id ?? null) : null;
      // JSON-RPC errors travel in a 200, as the SDK's own transports send them. An internal failure is a 500
      // whose text names only a reference: raw exception text never reaches a client.
      const failure = (error: unknown): A2aHttpResult => {
        const mapped = mapError(error);
        if (mapped.code !== A2A_ERROR_CODE.INTERNAL_ERROR)
          return { status: 200, body: { jsonrpc: '2.0', id, error: mapped } };
        const reference = randomUUID();
        deps.log.error({ err: error, reference, workspaceId: call.site.workspaceId }, 'concierge A2A request failed');
        const internal = { code: mapped.code, message: `Internal error. Reference: ${reference}` };
        return { status: 500, body: { jsonrpc: '2.0', id, error: internal } };
      };

      if (contentType !== null && contentType.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
        return failure(
          new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json.`),
        );
      }
      if (parseError) return failure(parseError);
      try {
        const context = new ServerCallContext({
          user: new UnauthenticatedUser(),
          requestedVersion: version,
          requestedExtensions: Extensions.parseServiceParameter(
            useLegacy
              ? (header(headers, 'X-A2A-Extensions') ?? header(headers, 'A2A-Extensions'))
              : header(headers, 'A2A-Extensions'),
          ),
          state: new Map<string, unknown>([[CALL_STATE_KEY, call]]),
        });
        validateVersion(version, HANDLER_CARD, 'JSONRPC');
        const result = await (useLegacy ? legacy : v1).handle(body as Record<string, unknown>, context);
        if (typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
          // Streaming methods: the card says no streaming, so the SDK's stream fails on its first step with
          // the proper error; a stream that did start is not served (there is no SSE here).
          const stream = result as AsyncGenerator<unknown, void, undefined>;
          try {
            await stream.next();
            await stream.return(undefined);
            return failure(new UnsupportedOperationError('Streaming is not supported.'));
          } catch (error) {
            return failure(error);
          }
        }
        return { status: 200, body: result };
      } catch (error) {
        return failure(error);
      }
    },
  };
}

export type ConciergeA2aBinding = ReturnType<typeof createConciergeA2aBinding>;
