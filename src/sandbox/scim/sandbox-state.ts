import type { FaultDecider } from '../faults/fault-decider.js';
import type { ProxyNotFound } from '../faults/proxy-not-found.js';
import type { FaultInjector } from './fault-injector.js';
import type { ScimStore } from './scim-store.js';
import type { ScimTruthRecorder } from './scim-truth.js';
import type { RecordedRequest, ScimQuirks, ScimSandboxAuth } from './types.js';

/** Everything one sandbox's request handlers share. */
export interface SandboxState {
  auth: ScimSandboxAuth;
  /** The administrators' bearer token, accepted besides `auth`. */
  adminToken?: string;
  /** Normalised prefix: `''` or `/segment[/segment...]` without a trailing slash. */
  prefix: string;
  /** Absolute root of the SCIM endpoints; set once the server listens. */
  endpoint: string;
  /** Path part of `baseUrl` (`''` for the origin). */
  baseUrlPath: string;
  store: ScimStore;
  /** Bursts queued by `injectThrottle` / `injectServerErrors`. */
  faults: FaultInjector;
  /** Paths a proxy in front of the server answers 404 itself (`injectProxyNotFound`). */
  proxy: ProxyNotFound;
  /** The seeded fault plan, and the count of the faults it injected. */
  plan: FaultDecider;
  /** Records committed changes in the sandbox's truth log. */
  truth: ScimTruthRecorder;
  quirks: ScimQuirks;
  requests: RecordedRequest[];
  /** After a request that may have changed the data, before it is answered. */
  onChange?: () => void;
  /** Bytes of every answer body sent, since the start. */
  bytesServed: number;
  /** Requests in the server now (worked on or queued). */
  inServer: number;
  /** Requests queued for a worker (quirk `capacity`), in order of arrival. */
  capacityQueue: (() => void)[];
  /** Requests worked on now (quirk `capacity`). */
  working: number;
}
