/**
 * The activity edge of the error model: domain `AppError`s that retrying cannot fix (bad input, not found,
 * conflicts, insufficient credits) become non-retryable `ApplicationFailure`s carrying the stable code as
 * their type; everything else stays retryable under the activity's retry policy.
 */
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../../src/errors.ts';

const NON_RETRYABLE = new Set(['validation_failed', 'not_found', 'conflict', 'insufficient_credits', 'forbidden']);

export async function translateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && NON_RETRYABLE.has(error.code)) {
      throw ApplicationFailure.create({ message: error.message, type: error.code, nonRetryable: true });
    }
    throw error;
  }
}
