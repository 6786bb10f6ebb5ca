import type { QuarantineStore } from '../../src/store/quarantine-store';

/**
 * The quarantine store of a test that builds only part of the service (a registry and a
 * handler): no connector was ever quarantined, and nothing may change that.
 */
export const NO_QUARANTINE: QuarantineStore = {
  get: async () => undefined,
  list: async () => [],
  held: async () => [],
  enter: () => Promise.reject(new Error('this test has no quarantine store')),
  probeFailed: () => Promise.reject(new Error('this test has no quarantine store')),
  release: () => Promise.reject(new Error('this test has no quarantine store')),
  hold: () => Promise.reject(new Error('this test has no quarantine store')),
  unhold: () => Promise.reject(new Error('this test has no quarantine store')),
};
