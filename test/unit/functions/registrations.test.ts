import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const CONNECTORS = JSON.stringify([
  {
    name: 'hr-app',
    kind: 'scim',
    baseUrl: 'https://hr.example.com',
    auth: { type: 'bearer', tokenSecret: 'hr-token' },
    importSchedule: '0 0 2 * * *',
    reconcileSchedule: '0 30 3 * * *',
  },
]);

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.resetModules();
});

describe('functions/index.ts (registrations, outside the Functions host)', () => {
  it('registers every route, orchestrator, activity, the queue, the import, reconciliation and intent purge timers', async () => {
    vi.stubEnv('PROVISIONING_CONNECTORS', CONNECTORS);
    const functions = await import('@azure/functions');
    const durable = await import('durable-functions');
    const http = vi.spyOn(functions.app, 'http');
    const queue = vi.spyOn(functions.app, 'storageQueue');
    const timer = vi.spyOn(functions.app, 'timer');
    const orchestration = vi.spyOn(durable.app, 'orchestration');
    const activity = vi.spyOn(durable.app, 'activity');
    await import('../../../functions/index.js');
    const { apiRoutes } = await import('../../../src/api/routes.js');
    const routeNames = apiRoutes({
      services: () => Promise.reject(new Error('not called')),
      orchestrations: () => {
        throw new Error('not called');
      },
      now: () => new Date(),
    }).map((route) => route.name);
    expect(routeNames).toContain('submitRequest');
    // In Azure the metrics go to Application Insights: no Prometheus route.
    expect(routeNames).not.toContain('metrics');
    expect(http.mock.calls.map(([name]) => name)).toEqual(routeNames);
    const routes = http.mock.calls.map(([name, options]) => ({
      name,
      route: options.route,
      authLevel: options.authLevel,
    }));
    // Each operation with a function key, and again for signed-in callers; then the console
    // and the liveness probe.
    const keyed = routes.filter((r) => r.authLevel === 'function');
    expect(keyed.map((r) => r.name)).toContain('listRequests');
    expect(
      routes
        .filter((r) => r.authLevel === 'anonymous')
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual(
      [
        { name: 'console', route: 'console/{*path}', authLevel: 'anonymous' },
        { name: 'healthLive', route: 'health/live', authLevel: 'anonymous' },
        ...keyed.map((r) => ({
          name: `${r.name}SignedIn`,
          route: `signed-in/${r.route}`,
          authLevel: 'anonymous',
        })),
      ].sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(orchestration.mock.calls.map(([name]) => name).sort()).toEqual([
      'catalogueImport',
      'compatibilityRun',
      'connectorProbe',
      'provisioningRequest',
      'reconciliation',
      'requestPreview',
    ]);
    expect(activity.mock.calls.length).toBeGreaterThanOrEqual(17);
    // The activity that starts a quarantine's probe gets a Durable client; the others none.
    const withClient = activity.mock.calls
      .filter(([, options]) => (options.extraInputs ?? []).length > 0)
      .map(([name]) => name);
    expect(withClient).toEqual(['connectorGate']);
    expect(queue.mock.calls[0]?.[1]).toMatchObject({ queueName: 'provisioning-requests' });
    expect(timer.mock.calls).toEqual([
      ['import-hr-app', expect.objectContaining({ schedule: '0 0 2 * * *' })],
      ['reconcile-hr-app', expect.objectContaining({ schedule: '0 30 3 * * *' })],
      ['purge-write-intents', expect.objectContaining({ schedule: '0 15 4 * * *' })],
      [
        'sweep-request-passwords',
        expect.objectContaining({ schedule: '0 40 * * * *', extraInputs: [expect.anything()] }),
      ],
    ]);
  });

  it('sets up telemetry before anything else is imported', () => {
    const source = readFileSync(join(__dirname, '..', '..', '..', 'functions', 'index.ts'), 'utf8');
    const imports = [...source.matchAll(/^import\s[^;]*?['"]([^'"]+)['"];/gm)].map((m) => m[1]);
    expect(imports[0]).toBe('../src/telemetry/start-azure-monitor');
    expect(imports.length).toBeGreaterThan(5);
  });

  it('refuses to load with a bad setting, naming it (DESIGN invariant 6)', async () => {
    vi.stubEnv('PROVISIONING_CONNECTORS', '[{"name":"hr-app","kind":"scim"}]');
    await expect(import('../../../functions/index.js')).rejects.toThrow(
      /connector "hr-app": setting "baseUrl"/,
    );
  });
});
