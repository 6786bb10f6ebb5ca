import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_MAX_DEQUEUE_COUNT, MAX_DEQUEUE_COUNT } from '../../../src/api/bulk-request-handler';
import { SETTINGS } from '../../../src/config/settings-catalogue';
import {
  appSettings,
  onlyResource,
  referenceTo,
  resourcesOfType,
  siteIdentity,
} from './arm-snapshot';
import { describeCompiled, repoRoot, template } from './compiled-template';

interface DurableTaskJson {
  hubName: string;
  overridableExistingInstanceStates?: string;
  storageProvider: Record<string, unknown>;
}

interface HostJson {
  extensionBundle: { id: string; version: string };
  extensions: { durableTask: DurableTaskJson; queues: { maxDequeueCount: number } };
}

const hostJson = JSON.parse(readFileSync(join(repoRoot, 'host.json'), 'utf8')) as HostJson;

/**
 * host.json as the Functions host sees it with these app settings: a setting
 * `AzureFunctionsJobHost__a__b` overrides `a.b` (Functions "Override host.json values"), its
 * path read without case, as .NET configuration does.
 */
function effectiveHostJson(host: unknown, settings: Record<string, string>): HostJson {
  const effective = structuredClone(host) as Record<string, unknown>;
  for (const [name, value] of Object.entries(settings)) {
    const path = /^AzureFunctionsJobHost__(.+)$/i.exec(name)?.[1]?.split('__');
    if (path === undefined) continue;
    let node = effective;
    path.forEach((segment, index) => {
      const key = Object.keys(node).find((k) => k.toLowerCase() === segment.toLowerCase());
      if (index === path.length - 1) node[key ?? segment] = value;
      else node = (node[key ?? segment] ??= {}) as Record<string, unknown>;
    });
  }
  return effective as unknown as HostJson;
}

describe('host.json and the Functions host', () => {
  it('is overridden by AzureFunctionsJobHost__ settings as the host does, in any case', () => {
    const effective = effectiveHostJson(hostJson, {
      azurefunctionsjobhost__Extensions__DURABLETASK__storageProvider__type: 'AzureStorage',
      AzureFunctionsJobHost__extensions__durableTask__storageProvider__partitionCount: '8',
      DURABLE_TASK_SCHEDULER_CONNECTION_STRING: 'not an override',
    });
    expect(effective.extensions.durableTask.storageProvider).toEqual({
      ...hostJson.extensions.durableTask.storageProvider,
      type: 'AzureStorage',
      partitionCount: '8',
    });
    expect(hostJson.extensions.durableTask.storageProvider.type).toBe('azureManaged');
  });

  it("gives the host more dequeues than the bulk handler's own limit, as the handler and the local host count on", () => {
    // At the host's limit it moves the message to <queue>-poison in clear, password and all:
    // the handler must give the message up (redacted) first, with dequeues to spare.
    expect(hostJson.extensions.queues.maxDequeueCount).toBe(HOST_MAX_DEQUEUE_COUNT);
    expect(HOST_MAX_DEQUEUE_COUNT).toBeGreaterThan(MAX_DEQUEUE_COUNT + 1);
  });

  it('never lets a second start of a request replace its running orchestration', () => {
    // The default (AnyState) lets a start with a running instance's id restart it from an
    // empty history: a queue message delivered twice at once, or a caller's retry racing its
    // first submission, would run a request's writes again. The submit path reads a refused
    // start as "exists" (DurableOrchestrationClient.startNew).
    expect(hostJson.extensions.durableTask.overridableExistingInstanceStates).toBe(
      'NonRunningStates',
    );
  });

  it('takes the extension bundle that carries the scheduler provider (4.32.0 or later)', () => {
    const lowest = /^\[(\d+)\.(\d+)\.(\d+),/.exec(hostJson.extensionBundle.version);
    expect(lowest, hostJson.extensionBundle.version).not.toBeNull();
    const [major, minor] = [Number(lowest![1]), Number(lowest![2])];
    expect(major === 4 && minor >= 32).toBe(true);
  });
});

describeCompiled('the Durable backend of the compiled template', () => {
  it('runs on the scheduler by default: host.json names it, the setting reaches it with the identity', () => {
    const { snapshot, template: arm } = template();
    expect(arm.parameters?.durableBackend?.defaultValue).toBe('scheduler');
    const settings = appSettings(snapshot);
    const durable = effectiveHostJson(hostJson, settings).extensions.durableTask;
    expect(durable.storageProvider.type).toBe('azureManaged');
    const settingName = String(durable.storageProvider.connectionStringName);
    expect(SETTINGS.find((s) => s.name === settingName)).toMatchObject({
      readBy: 'host',
      durableBackend: 'scheduler',
    });
    const scheduler = onlyResource(snapshot, 'Microsoft.DurableTask/schedulers');
    const identity = siteIdentity(snapshot);
    // Identity only: no key exists for the scheduler, and the client ID picks the app's identity.
    expect(settings[settingName]).toBe(
      `[format('Endpoint={0};Authentication=ManagedIdentity;ClientID={1}', coalesce(${referenceTo(scheduler, 'endpoint')}, ''), ${referenceTo(identity, 'clientId')})]`,
    );
    expect(
      resourcesOfType(snapshot, 'Microsoft.DurableTask/schedulers/taskHubs').map((h) => h.name),
    ).toEqual([`${scheduler.name}/${durable.hubName}`]);
    expect(scheduler.properties).toMatchObject({ ipAllowlist: ['0.0.0.0/0'] });
  });

  it('runs on the identity-based host storage with DURABLE_BACKEND=storage, host.json unchanged', () => {
    const { snapshot, parameters } = template('storage-backend');
    expect(parameters.parameters.durableBackend?.value).toBe('storage');
    const settings = appSettings(snapshot);
    const durable = effectiveHostJson(hostJson, settings).extensions.durableTask;
    expect(durable.hubName).toBe(hostJson.extensions.durableTask.hubName);
    expect(durable.storageProvider).toEqual({
      type: 'AzureStorage',
      connectionStringName: 'AzureWebJobsStorage',
    });
    // The connection the Azure Storage provider then uses: the identity-based host storage.
    expect(settings).toMatchObject({
      AzureWebJobsStorage__accountName: onlyResource(snapshot, 'Microsoft.Storage/storageAccounts')
        .name,
      AzureWebJobsStorage__credential: 'managedidentity',
      AzureWebJobsStorage__clientId: `[${referenceTo(siteIdentity(snapshot), 'clientId')}]`,
    });
    expect(Object.keys(settings)).not.toContain('AzureWebJobsStorage');
  });
});
