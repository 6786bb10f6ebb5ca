import type { AddressInfo } from 'node:net';
import { ProvisioningError } from '../../domain/errors.js';
import { FaultDecider } from '../faults/fault-decider.js';
import { TruthLog } from '../truth/truth-log.js';
import { createScimApp } from './create-scim-app.js';
import { FaultInjector } from './fault-injector.js';
import { ProxyNotFound } from '../faults/proxy-not-found.js';
import type { SandboxState } from './sandbox-state.js';
import { ScimStore } from './scim-store.js';
import { ScimTruthRecorder } from './scim-truth.js';
import type { ScimSandbox, ScimSandboxOptions } from './types.js';

const SCIM_V2 = '/scim/v2';

function normalisePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? SCIM_V2).trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * Starts an in-memory SCIM 2.0 server (RFC 7643/7644) on 127.0.0.1 with an ephemeral port,
 * with switchable quirks of real servers (scim-interop.md). Each sandbox has its own data.
 *
 * @example
 * const sandbox = await startScimSandbox({ auth: { type: 'bearer', token: 't' }, quirks: { maxCount: 100 } });
 * sandbox.seedGroups([{ displayName: 'Sales' }]);
 * await fetch(`${sandbox.endpoint}/Groups`, { headers: { authorization: 'Bearer t' } });
 * await sandbox.close();
 */
export async function startScimSandbox(options: ScimSandboxOptions = {}): Promise<ScimSandbox> {
  const prefix = normalisePrefix(options.prefix);
  const now = options.now ?? Date.now;
  // The quirks are read when asked: setQuirks replaces them.
  const store = new ScimStore(() => state.quirks.userNamesCaseExact === true);
  if (options.restore !== undefined) store.restore(options.restore);
  const truthLog = new TruthLog();
  const state: SandboxState = {
    auth: options.auth ?? { type: 'none' },
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
    prefix,
    endpoint: '',
    baseUrlPath: prefix.endsWith(SCIM_V2) ? prefix.slice(0, -SCIM_V2.length) : prefix,
    store,
    faults: new FaultInjector(),
    proxy: new ProxyNotFound(),
    plan: new FaultDecider(now),
    truth: new ScimTruthRecorder(store, truthLog, now),
    quirks: { ...options.quirks },
    requests: [],
    ...(options.onChange === undefined ? {} : { onChange: options.onChange }),
    bytesServed: 0,
    inServer: 0,
    capacityQueue: [],
    working: 0,
  };
  state.plan.configure(options.faults);
  const app = createScimApp(state);
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.endpoint = `${origin}${prefix}`;

  const userId = (idOrUserName: string): string | undefined =>
    store.getUser(idOrUserName) !== undefined ? idOrUserName : store.findUserId(idOrUserName);
  const groupId = (idOrName: string): string | undefined =>
    store.getGroup(idOrName) !== undefined ? idOrName : store.findGroupId(idOrName);

  return {
    baseUrl: `${origin}${state.baseUrlPath}`,
    endpoint: state.endpoint,
    get requests() {
      return state.requests;
    },
    get bytesServed() {
      return state.bytesServed;
    },
    setQuirks(quirks) {
      state.quirks = { ...quirks };
    },
    setAuth(auth) {
      state.auth = auth;
    },
    injectThrottle(count, retryAfter, scope) {
      state.faults.throttle(count, retryAfter, scope);
    },
    injectServerErrors(count, status, scope) {
      state.faults.serverErrors(count, status, scope);
    },
    injectForbidden(count, scope) {
      state.faults.forbidden(count, scope);
    },
    injectProxyNotFound(pathEnd, body = 'html') {
      state.proxy.answer(pathEnd, body);
    },
    clearInjected() {
      state.faults.clear();
      state.proxy.clear();
    },
    clearRequests() {
      state.requests.length = 0;
    },
    seedUsers(users) {
      return users.map((user) => {
        if (store.findUserId(user.userName) !== undefined) {
          throw new ProvisioningError(
            'SCIM_UNIQUENESS_CONFLICT',
            `seed user "${user.userName}" already exists`,
            {
              object: user.userName,
            },
          );
        }
        const resource = store.putUser(
          undefined,
          {
            userName: user.userName,
            ...(user.displayName === undefined ? {} : { displayName: user.displayName }),
            active: user.active ?? true,
          },
          user.lastLogon,
        );
        return { id: String(resource.id), userName: user.userName };
      });
    },
    seedGroups(groups) {
      return groups.map((group) => {
        if (store.findGroupId(group.displayName) !== undefined) {
          throw new ProvisioningError(
            'SCIM_UNIQUENESS_CONFLICT',
            `seed group "${group.displayName}" already exists`,
            {
              object: group.displayName,
            },
          );
        }
        const members = (group.members ?? []).map((value) => ({ value }));
        const resource = store.putGroup(undefined, { displayName: group.displayName, members });
        return { id: String(resource.id), displayName: group.displayName };
      });
    },
    getUser(idOrUserName) {
      const id = userId(idOrUserName);
      const resource = id === undefined ? undefined : store.getUser(id);
      return resource === undefined ? undefined : structuredClone(resource);
    },
    getGroup(idOrDisplayName) {
      const id = groupId(idOrDisplayName);
      const resource = id === undefined ? undefined : store.getGroup(id);
      return resource === undefined ? undefined : structuredClone(resource);
    },
    listUsers() {
      return store.listUsers().map((user) => structuredClone(user));
    },
    listGroups() {
      return store.listGroups().map((group) => structuredClone(group));
    },
    hasPassword(idOrUserName) {
      const id = userId(idOrUserName);
      return id !== undefined && store.hasPassword(id);
    },
    setLastLogon(userName, iso) {
      const id = store.findUserId(userName);
      if (id === undefined) {
        throw new ProvisioningError('ACCOUNT_NOT_FOUND', `sandbox user "${userName}" not found`, {
          object: userName,
        });
      }
      store.setLastLogon(id, iso);
    },
    groupIdsOf(userIdOrUserName) {
      return store.groupIdsOf(userIdOrUserName);
    },
    snapshot() {
      return store.snapshot();
    },
    truthLog() {
      return truthLog.list();
    },
    clearTruthLog() {
      truthLog.clear();
    },
    setFaults(plan) {
      state.plan.configure(plan);
    },
    faultCounts() {
      return state.plan.counts();
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
    },
  };
}
