/**
 * HTTP for tests: the product's loopback-aware fetch, which resolves every `*.localhost` name to loopback
 * (as browsers and curl do; the machine's resolver does not), so tests use the platform's real host names.
 */
export {
  loopbackAwareFetch as testFetch,
  closeLoopbackAwareFetch as closeTestFetch,
} from '../../src/net/loopback-aware-fetch.ts';
