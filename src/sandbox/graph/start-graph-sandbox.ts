import { ProvisioningError } from '../../domain/errors.js';
import { FaultDecider } from '../faults/fault-decider.js';
import type { SandboxFaultPlan } from '../faults/sandbox-fault-plan.js';
import { drawInRange, seededStream } from '../faults/seeded-stream.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, AccessTokenIssuer } from './access-token-issuer.js';
import { restoreDirectory, snapshotDirectory } from './directory-snapshot.js';
import { DirectoryStore } from './directory-store.js';
import type { ReadView } from './directory-store.js';
import type { GraphContext } from './graph-context.js';
import type {
  GraphSandbox,
  GraphSandboxClient,
  GraphSandboxOptions,
  GraphSandboxRequestRecord,
  ReplicationDelay,
} from './graph-sandbox-types.js';
import { generateLoopbackCertificate } from './loopback-certificate.js';
import { startLoopbackHttpsServer } from './loopback-https-server.js';
import { EntraQuota, type GraphQuotaOptions } from './entra-quota.js';
import { RequestBudget } from './request-budget.js';
import { ProxyNotFound } from '../faults/proxy-not-found.js';
import { createSandboxDispatcher } from './sandbox-request-dispatcher.js';
import {
  DEFAULT_SANDBOX_CLIENT,
  DEFAULT_SANDBOX_TENANT_ID,
  DEFAULT_VERIFIED_DOMAINS,
} from './sandbox-defaults.js';
import { SandboxSeeder } from './sandbox-seeder.js';
import { createSeededRandom } from './seeded-random.js';
import { openIdConfiguration } from './token-authority.js';

function checkDelay(delay: ReplicationDelay, name = 'replication delay'): ReplicationDelay {
  const ok =
    typeof delay === 'number'
      ? delay >= 0
      : delay.min >= 0 && delay.max >= delay.min && Number.isFinite(delay.max);
  if (!ok) throw new ProvisioningError('REQUEST_INVALID', `${name} must be >= 0 and min <= max`);
  return delay;
}

/** Graph's page size for directory objects in delta queries (they ignore `$top`). */
const DEFAULT_DELTA_PAGE_SIZE = 200;
/** Member references per page of a `groups/delta` round with `$select=members`. */
const DEFAULT_DELTA_REFERENCES_PER_PAGE = 1_000;

function checkPageSize(size: number): number {
  if (!Number.isInteger(size) || size < 1) {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `delta page size ${size} must be a positive integer`,
    );
  }
  return size;
}

function unknownGroup(groupId: string): ProvisioningError {
  return new ProvisioningError('REQUEST_INVALID', `the Graph sandbox has no group '${groupId}'`);
}

/** The seed of replication draws when neither a fault plan nor `replicationSeed` gives one. */
const DEFAULT_REPLICATION_SEED = 0x5eed;

/** Keeps the request log bounded when the sandbox serves a long-running local host. */
const MAX_LOGGED_REQUESTS = 100_000;

function recordRequest(log: GraphSandboxRequestRecord[], entry: GraphSandboxRequestRecord): void {
  log.push(entry);
  if (log.length > MAX_LOGGED_REQUESTS) log.splice(0, log.length - MAX_LOGGED_REQUESTS / 2);
}

/**
 * Starts the Graph sandbox: one HTTPS server on 127.0.0.1 (ephemeral port, certificate
 * generated now) serving a client-credentials token authority and an in-memory
 * Microsoft Graph v1.0 subset that behaves as reference/graph-behaviour.md describes.
 *
 * @example
 * const sandbox = await startGraphSandbox({ replicationDelayMs: 5_000, now: clock.now });
 * const msal = new ConfidentialClientApplication({
 *   auth: { clientId, clientSecret, authority: `${sandbox.authority}/${sandbox.tenantId}`,
 *           knownAuthorities: [sandbox.knownAuthority], authorityMetadata: sandbox.authorityMetadata() },
 *   system: { networkClient },  // trusts sandbox.ca
 * });
 * await sandbox.close();
 */
export async function startGraphSandbox(options: GraphSandboxOptions = {}): Promise<GraphSandbox> {
  const [certificate, issuer] = await Promise.all([
    generateLoopbackCertificate(),
    AccessTokenIssuer.create(),
  ]);
  const tenantId = options.tenantId ?? DEFAULT_SANDBOX_TENANT_ID;
  const now = options.now ?? Date.now;
  const faults = new FaultDecider(now);
  const ownSeed = options.replicationSeed ?? DEFAULT_REPLICATION_SEED;
  let replicationRandom = createSeededRandom(ownSeed);
  let lagRandom = seededStream(ownSeed, 'new object lag');
  const setFaults = (plan: SandboxFaultPlan | undefined): void => {
    faults.configure(plan);
    replicationRandom =
      plan === undefined ? createSeededRandom(ownSeed) : seededStream(plan.seed, 'replication');
    lagRandom = seededStream(plan?.seed ?? ownSeed, 'new object lag');
  };
  setFaults(options.faults);
  let newObjectWriteLag = checkDelay(options.newObjectWriteLagMs ?? 0, 'new object write lag');
  const clients = new Map<string, GraphSandboxClient>();
  for (const client of options.clients ?? [DEFAULT_SANDBOX_CLIENT]) {
    clients.set(client.clientId, {
      ...client,
      roles: [...client.roles],
      ...(client.directoryRoles === undefined
        ? {}
        : { directoryRoles: [...client.directoryRoles] }),
    });
  }
  let replicationDelay = checkDelay(options.replicationDelayMs ?? 0);
  let latencyMs = options.latencyMs ?? 0;
  let tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? ACCESS_TOKEN_LIFETIME_SECONDS;
  let origin = '';
  const budget = new RequestBudget(options.throttle);
  const quotaOf = (settings: GraphQuotaOptions | undefined) =>
    settings === undefined ? undefined : EntraQuota.withDefaults(settings, tenantId, now);
  let quota = quotaOf(options.quota);
  const requests: GraphSandboxRequestRecord[] = [];
  const stats = { tokenRequests: 0, graphRequests: 0, batchSubRequests: 0 };
  const store = new DirectoryStore();
  if (options.restore !== undefined) restoreDirectory(store, options.restore);
  const context: GraphContext = {
    store,
    settings: {
      verifiedDomains: [...(options.verifiedDomains ?? DEFAULT_VERIFIED_DOMAINS)],
      signInActivityLicensed: options.signInActivityLicensed ?? true,
      deltaPageSize: checkPageSize(options.deltaPageSize ?? DEFAULT_DELTA_PAGE_SIZE),
      deltaReferencesPerPage: checkPageSize(
        options.deltaReferencesPerPage ?? DEFAULT_DELTA_REFERENCES_PER_PAGE,
      ),
      deltaTokenGeneration: 1,
    },
    graphEndpoint: () => origin,
    now,
    readView: (): ReadView => ({
      now: now(),
      delayMs: drawInRange(replicationDelay, replicationRandom),
    }),
    newObjectWriteLag: () => drawInRange(newObjectWriteLag, lagRandom),
    faults,
    staleLockReads: new Set(),
    accountEnabledBeforePatch: new Map(),
    limitedGroups: new Set(),
    removedInDelta: new Set(),
  };

  const proxy = new ProxyNotFound();
  const server = await startLoopbackHttpsServer(
    certificate,
    createSandboxDispatcher({
      authority: {
        tenantId,
        tenantAliases: () => context.settings.verifiedDomains,
        authority: () => origin,
        graphEndpoint: () => origin,
        clients,
        issuer,
        tokenLifetimeSeconds: () => tokenLifetimeSeconds,
        now,
      },
      graph: {
        context,
        budget,
        quota: () => quota,
        issuer,
        tenantId,
        stats,
        record: (entry) => recordRequest(requests, entry),
      },
      stats,
      latencyMs: () => latencyMs,
      proxy,
      ...(options.onChange === undefined ? {} : { onChange: options.onChange }),
    }),
  );
  origin = `https://127.0.0.1:${server.port}`;
  const seeder = new SandboxSeeder(
    store,
    now,
    () => context.settings.verifiedDomains[0] ?? 'contoso.example',
  );

  return {
    tenantId,
    authority: origin,
    knownAuthority: `127.0.0.1:${server.port}`,
    authorityMetadata: (tenant = tenantId) => JSON.stringify(openIdConfiguration(origin, tenant)),
    graphEndpoint: origin,
    ca: certificate.cert,
    stats,
    get bytesServed() {
      return server.bytesServed;
    },
    requests,
    clearRequests: () => {
      requests.length = 0;
    },
    addUser: (u) => seeder.addUser(u),
    addGroup: (g) => {
      const group = seeder.addGroup(g);
      if (g.limited === true) context.limitedGroups.add(group.id);
      return group;
    },
    addDirectoryRole: (r) => seeder.addDirectoryRole(r),
    addAdministrativeUnit: (a) => seeder.addAdministrativeUnit(a),
    updateGroup: (groupId, changes) => seeder.updateGroup(groupId, changes),
    reportGroupRemoved: (groupId) => {
      if (store.group(groupId) === undefined) throw unknownGroup(groupId);
      context.removedInDelta.add(groupId);
      store.groupChanges.record(groupId, 'updated', [], now());
    },
    injectProxyNotFound: (pathEnd, body = 'html') => proxy.answer(pathEnd, body),
    clearProxyNotFound: () => proxy.clear(),
    deleteGroup: (groupId) => {
      if (store.group(groupId) === undefined) throw unknownGroup(groupId);
      store.deleteGroup(groupId, now());
    },
    expireDeltaTokens: () => {
      context.settings.deltaTokenGeneration += 1;
    },
    addMember: (containerId, memberId) => seeder.addMember(containerId, memberId),
    getUser: (id) => {
      const user = store.committedUser(id);
      return user === undefined ? undefined : structuredClone(user);
    },
    directMemberIds: (groupId) => store.memberships.committedMembers(groupId),
    userIdByUpn: (upn) => store.userIdByUpn(upn),
    groupIdsOf: (userId) => store.groupIdsOf(userId),
    snapshot: () => snapshotDirectory(store),
    truthLog: () => store.truth.list(),
    clearTruthLog: () => store.truth.clear(),
    setFaults,
    faultCounts: () => faults.counts(),
    setNewObjectWriteLag: (lag) => {
      newObjectWriteLag = checkDelay(lag, 'new object write lag');
    },
    setClientRoles: (clientId, roles) => {
      clientOf(clients, clientId).roles = [...roles];
    },
    setClientSecret: (clientId, secret) => {
      clientOf(clients, clientId).secret = secret;
    },
    setTokenLifetime: (seconds) => {
      tokenLifetimeSeconds = seconds;
    },
    setReplicationDelay: (delay) => {
      replicationDelay = checkDelay(delay);
    },
    setThrottle: (throttle) => budget.configure(throttle),
    setQuota: (settings) => {
      quota = quotaOf(settings);
    },
    quotaStats: () => (quota === undefined ? undefined : { ...quota.stats }),
    setLicensed: (licensed) => {
      context.settings.signInActivityLicensed = licensed;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    failNextLockReadBack: (userId) => {
      context.staleLockReads.add(userId);
    },
    close: () => server.close(),
  };
}

function clientOf(clients: Map<string, GraphSandboxClient>, clientId: string): GraphSandboxClient {
  const client = clients.get(clientId);
  if (client === undefined) {
    throw new ProvisioningError('REQUEST_INVALID', `the Graph sandbox has no client '${clientId}'`);
  }
  return client;
}
