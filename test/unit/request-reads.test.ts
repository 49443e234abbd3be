/**
 * Reads shared within one request (src/domain/shared/request-reads.ts): computed once per key inside
 * `sharingReads`, concurrent callers included; computed every time outside one; never carried to the next
 * request.
 */
import { sharedRead, sharingReads } from '../../src/domain/shared/request-reads.ts';

function counted<T>(value: T) {
  let computed = 0;
  return {
    compute: async () => {
      computed += 1;
      await new Promise((resolve) => setImmediate(resolve));
      return value;
    },
    computed: () => computed,
  };
}

it('computes a key once for every call of one request, concurrent calls included', async () => {
  const page = counted({ experiments: 3 });
  const other = counted({ experiments: 4 });
  const results = await sharingReads(() =>
    Promise.all([
      sharedRead('experiments:ws_a', page.compute),
      sharedRead('experiments:ws_a', page.compute),
      sharedRead('experiments:ws_b', other.compute),
    ]),
  );
  expect(results).toEqual([{ experiments: 3 }, { experiments: 3 }, { experiments: 4 }]);
  expect(results[0]).toBe(results[1]);
  expect(page.computed()).toBe(1);
  expect(other.computed()).toBe(1);
});

it('computes every time outside a request that shares reads, and again in the next request', async () => {
  const page = counted('page');
  await sharedRead('experiments:ws_a', page.compute);
  await sharedRead('experiments:ws_a', page.compute);
  expect(page.computed()).toBe(2);
  await sharingReads(() => sharedRead('experiments:ws_a', page.compute));
  await sharingReads(() => sharedRead('experiments:ws_a', page.compute));
  expect(page.computed()).toBe(4);
});

it('shares a failure within the request only', async () => {
  let attempts = 0;
  const failing = async () => {
    attempts += 1;
    throw new Error('statement failed');
  };
  await sharingReads(async () => {
    await expect(sharedRead('k', failing)).rejects.toThrow('statement failed');
    await expect(sharedRead('k', failing)).rejects.toThrow('statement failed');
  });
  expect(attempts).toBe(1);
  await expect(sharingReads(() => sharedRead('k', failing))).rejects.toThrow('statement failed');
  expect(attempts).toBe(2);
});
