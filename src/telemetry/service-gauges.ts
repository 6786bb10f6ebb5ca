import type { ConnectorRegistry } from '../connectors/connector-registry';
import type { QuarantineState } from '../domain/quarantine';
import { daysUntilExpiry } from '../domain/credential-expiry';
import type { GaugeReading, ServiceMetrics } from './service-metrics';

export interface GaugeSources {
  registry: Pick<ConnectorRegistry, 'names' | 'get' | 'settings'>;
  bulkQueue: { backlog(): Promise<{ requests: number; poison: number }> };
  /** The shared quarantine table (src/store/quarantine-store.ts). */
  quarantine: { list(): Promise<QuarantineState[]> };
  now: () => number;
}

/**
 * The gauges the service observes itself, read at every collection: the bulk queue's
 * backlog, the share of its quota each paced connector used, each connector's quarantine (one query of the shared quarantine table) and each
 * connector's days until its credential expires (read through the secret store's cache, so
 * an export costs no call to Key Vault while the cache holds). A source that fails reports
 * nothing that time: a gap, never a made-up value.
 */
export function observeServiceGauges(metrics: ServiceMetrics, sources: GaugeSources): void {
  metrics.observeBulkBacklog(async () => {
    const backlog = await sources.bulkQueue.backlog().catch(() => undefined);
    return backlog === undefined
      ? []
      : [
          { value: backlog.requests, dimensions: { 'provisioning.queue': 'requests' } },
          { value: backlog.poison, dimensions: { 'provisioning.queue': 'poison' } },
        ];
  });
  metrics.observeCredentialExpiry(async () => {
    const readings = await Promise.all(
      sources.registry.names().map(async (name) => {
        const expiry = await sources.registry
          .get(name)
          ?.credentialState?.()
          .catch(() => undefined);
        if (expiry === undefined) return [];
        const reading: GaugeReading<'provisioning.secret.time_to_expiry'> = {
          value: daysUntilExpiry(expiry, sources.now()),
          dimensions: { 'provisioning.connector': name },
        };
        return [reading];
      }),
    );
    return readings.flat();
  });
  metrics.observeQuotaUtilization(() =>
    sources.registry.names().flatMap((name) => {
      const utilization = sources.registry.get(name)?.quotaUtilization?.();
      return utilization === undefined
        ? []
        : [{ value: utilization, dimensions: { 'provisioning.connector': name } }];
    }),
  );
  metrics.observeQuarantine(async () => {
    const states = await sources.quarantine.list().catch(() => undefined);
    if (states === undefined) return [];
    const byName = new Map(states.map((state) => [state.connector, state]));
    return sources.registry
      .names()
      .filter((name) => sources.registry.settings(name)?.quarantine.enabled === true)
      .map((name): GaugeReading<'provisioning.connector.quarantined'> => {
        const state = byName.get(name);
        return state?.quarantined === true
          ? {
              value: 1,
              dimensions: { 'provisioning.connector': name, 'error.type': state.reason.code },
            }
          : { value: 0, dimensions: { 'provisioning.connector': name } };
      });
  });
}
