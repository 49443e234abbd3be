/**
 * The activity edge of the error model. DO NOT throw domain errors past it: every `AppError` becomes an
 * `ApplicationFailure` whose type is its stable code (workflows read it as the job's error code,
 * `workflows/job-endings.ts`) and which is non-retryable unless `ERROR_TABLE` says a retry can help (bad input,
 * not found, conflicts, insufficient credits fail at once; `unavailable` waits for the retry policy). Anything
 * else stays retryable under the activity's retry policy.
 */
import { ApplicationFailure } from '@temporalio/common';
import { CreativeProviderError } from '../../src/domain/creative/openai/openai-engines.ts';
import { AppError, ERROR_TABLE, type ErrorCode } from '../../src/errors.ts';

export async function translateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) {
      throw ApplicationFailure.create({
        message: error.message,
        type: error.code,
        nonRetryable: !ERROR_TABLE[error.code].retryable,
        // Safe facts for the workflow (a rate limit's wait, a validation's fields).
        ...(error.details ? { details: [error.details] } : {}),
      });
    }
    // A provider that refuses the request (bad key, bad model, policy) will refuse it again: fail now. Timeouts,
    // rate limits and server errors stay retryable.
    if (
      error instanceof CreativeProviderError &&
      error.status !== null &&
      error.status >= 400 &&
      error.status < 500 &&
      error.status !== 408 &&
      error.status !== 429
    ) {
      throw ApplicationFailure.create({
        message: error.message,
        type: 'creative_provider_refused' satisfies ErrorCode,
        nonRetryable: true,
      });
    }
    throw error;
  }
}
