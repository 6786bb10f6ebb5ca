import type { InvocationContext } from '@azure/functions';
import type { OrchestrationClient } from '../workflows/orchestration-client';
import type { ServicesProvider } from '../workflows/workflow-services';

/** What the inbound handlers need: the same in Azure and on the local host. */
export interface ApiDeps {
  services: ServicesProvider;
  /** The Durable client of this invocation in Azure; the replay driver on the local host. */
  orchestrations(context: InvocationContext): OrchestrationClient;
  /** Wall-clock time for ids and received times (orchestrations use their own clock). */
  now(): Date;
  /**
   * True where App Service Authentication runs in front of the app: only then are signed-in
   * callers (`x-ms-client-principal`) believed. Default false.
   */
  appServiceAuthentication?: boolean;
  /**
   * How a caller with the key is recorded as `submittedBy` (default "function key"; the local
   * host says "local API key").
   */
  keyHolder?: string;
  /** Where the built console is (default: `dist/console` of this build). */
  consoleDirectory?: string;
  /** How long a preview may read before it is handed to a job (default `PREVIEW_WAIT_MS`). */
  previewWaitMs?: number;
  /**
   * The local host's metrics in the Prometheus text format: with it, `GET /api/metrics`
   * serves them. Absent in Azure, where they go to Application Insights.
   */
  metricsText?: () => Promise<string>;
}
