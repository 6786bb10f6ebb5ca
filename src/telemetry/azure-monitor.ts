import { AzureFunctionsInstrumentation } from '@azure/functions-opentelemetry-instrumentation';
import { ManagedIdentityCredential } from '@azure/identity';
import {
  useAzureMonitor,
  type AzureMonitorOpenTelemetryOptions,
} from '@azure/monitor-opentelemetry';
import { metrics, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import type { TelemetrySettings } from '../config/telemetry-settings';
import { PrivacyLogProcessor, PrivacySpanProcessor } from './privacy-processors';
import { isStorageCall } from './untraced-calls';

/** Overrides for tests: no live metrics stream is ever opened, whatever is given here. */
export type AzureMonitorOverrides = Pick<AzureMonitorOpenTelemetryOptions, 'metricReaders'>;

/**
 * OpenTelemetry the Azure way (issue 19): the Azure Monitor distro exports traces, metrics
 * and logs to Application Insights, and the Functions instrumentation joins each invocation
 * to the trace the Functions host started (host.json `telemetryMode: OpenTelemetry`; the
 * Durable extension carries it through orchestrations and activities). Must run before
 * anything else is loaded (functions/index.ts imports it first): the instrumentations patch
 * `@azure/functions` and `http` as they load. Nothing happens without
 * APPLICATIONINSIGHTS_CONNECTION_STRING. Returns whether it started.
 *
 * Choices, and why:
 * - every trace is kept (`samplingRatio` 1): one trace per provisioning request is what an
 *   operator looks for when a request failed, and the volume is that of the requests;
 * - no live metrics: its document stream samples spans before the privacy processor runs;
 * - no standard metrics and no performance counters (azureMonitorOptions says why);
 * - the service's own storage calls are not traced (no Azure SDK spans, and the HTTP
 *   instrumentation skips storage hosts: untraced-calls.ts); calls to targets, Key Vault and
 *   Entra ID are;
 * - the privacy processors run before the exporter (privacy-rules.ts);
 * - Entra ID authentication with the app's managed identity when
 *   APPLICATIONINSIGHTS_AUTHENTICATION_STRING says so (the component allows no key).
 */
export function startAzureMonitor(
  settings: TelemetrySettings,
  overrides: AzureMonitorOverrides = {},
): boolean {
  if (settings.connectionString === undefined) return false;
  useAzureMonitor(azureMonitorOptions(settings.connectionString, settings, overrides));
  registerInstrumentations({
    tracerProvider: trace.getTracerProvider(),
    meterProvider: metrics.getMeterProvider(),
    loggerProvider: logs.getLoggerProvider(),
    instrumentations: [new AzureFunctionsInstrumentation()],
  });
  return true;
}

/**
 * The distro's options (the choices listed at startAzureMonitor). Besides live metrics, the
 * distro's standard metrics and performance counters are off: both do work on every span
 * (the standard metrics record a histogram of each span's duration under dimensions taken
 * from its attributes), and nothing the service's alerts or workbook read comes from them
 * (they read `AppMetrics` of the service's own meter). Every span is still exported, so the
 * request and dependency rows and the portal's views on them stay as they were; Application
 * Insights aggregates its standard request and dependency metrics itself from received spans
 * that no exporter marked as aggregated.
 */
export function azureMonitorOptions(
  connectionString: string,
  settings: Pick<TelemetrySettings, 'managedIdentity' | 'accountIds'>,
  overrides: AzureMonitorOverrides = {},
): AzureMonitorOpenTelemetryOptions {
  const identity = settings.managedIdentity;
  // The distro hands these options to the HTTP instrumentation whole, hook included (its type
  // names only `enabled`).
  const http = { enabled: true, ignoreOutgoingRequestHook: isStorageCall };
  return {
    ...overrides,
    azureMonitorExporterOptions: {
      connectionString,
      ...(identity === undefined
        ? {}
        : {
            credential:
              identity === 'system'
                ? new ManagedIdentityCredential()
                : new ManagedIdentityCredential({ clientId: identity.clientId }),
          }),
    },
    samplingRatio: 1,
    tracesPerSecond: 0,
    enableLiveMetrics: false,
    enableStandardMetrics: false,
    enablePerformanceCounters: false,
    instrumentationOptions: {
      http,
      azureSdk: { enabled: false },
      mongoDb: { enabled: false },
      mySql: { enabled: false },
      postgreSql: { enabled: false },
      redis: { enabled: false },
      redis4: { enabled: false },
      bunyan: { enabled: false },
      winston: { enabled: false },
    },
    spanProcessors: [new PrivacySpanProcessor({ accountIds: settings.accountIds })],
    logRecordProcessors: [new PrivacyLogProcessor({ accountIds: settings.accountIds })],
  };
}
