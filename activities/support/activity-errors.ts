/**
 * The activity edge of the error model: domain `AppError`s that retrying cannot fix (bad input, not found,
 * conflicts, insufficient credits) become non-retryable `ApplicationFailure`s carrying the stable code as
 * their type; everything else stays retryable under the activity's retry policy.
 */
import { ApplicationFailure } from '@temporalio/common';
import { CreativeProviderError } from '../../src/domain/creative/openai/openai-engines.ts';
import { AppError } from '../../src/errors.ts';

const NON_RETRYABLE = new Set(['validation_failed', 'not_found', 'conflict', 'insufficient_credits', 'forbidden']);

export async function translateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && NON_RETRYABLE.has(error.code)) {
      throw ApplicationFailure.create({ message: error.message, type: error.code, nonRetryable: true });
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
        type: 'creative_provider_refused',
        nonRetryable: true,
      });
    }
    throw error;
  }
}
