import { describe, expect, it } from 'vitest';
import { azureMonitorOptions } from '../../../src/telemetry/azure-monitor';
import {
  PrivacyLogProcessor,
  PrivacySpanProcessor,
} from '../../../src/telemetry/privacy-processors';

const CONNECTION = 'InstrumentationKey=00000000-0000-0000-0000-000000000000';

describe('azureMonitorOptions: the distro does only the work operators read', () => {
  const options = azureMonitorOptions(CONNECTION, { accountIds: false });

  it('switches off the distro features that work on every span: standard metrics, performance counters, live metrics', () => {
    expect(options.enableStandardMetrics).toBe(false);
    expect(options.enablePerformanceCounters).toBe(false);
    expect(options.enableLiveMetrics).toBe(false);
  });

  it('keeps every trace and the privacy processors', () => {
    expect(options.samplingRatio).toBe(1);
    expect(options.tracesPerSecond).toBe(0);
    expect(options.spanProcessors?.[0]).toBeInstanceOf(PrivacySpanProcessor);
    expect(options.logRecordProcessors?.[0]).toBeInstanceOf(PrivacyLogProcessor);
  });

  it('loads the HTTP instrumentation alone, skipping storage calls', () => {
    const instrumentations = Object.entries(options.instrumentationOptions ?? {}) as [
      string,
      { enabled?: boolean } | undefined,
    ][];
    const enabled = instrumentations.filter(([, config]) => config?.enabled !== false);
    expect(enabled.map(([name]) => name)).toEqual(['http']);
    const http = options.instrumentationOptions?.http as {
      ignoreOutgoingRequestHook: (request: { hostname: string }) => boolean;
    };
    expect(http.ignoreOutgoingRequestHook({ hostname: 'st.table.core.windows.net' })).toBe(true);
    expect(http.ignoreOutgoingRequestHook({ hostname: 'graph.microsoft.com' })).toBe(false);
  });

  it('exports with the connection string, and a managed identity when one is set', () => {
    expect(options.azureMonitorExporterOptions?.connectionString).toBe(CONNECTION);
    expect(options.azureMonitorExporterOptions?.credential).toBeUndefined();
    const withIdentity = azureMonitorOptions(CONNECTION, {
      accountIds: false,
      managedIdentity: { clientId: '11111111-1111-1111-1111-111111111111' },
    });
    expect(withIdentity.azureMonitorExporterOptions?.credential).toBeDefined();
  });
});
