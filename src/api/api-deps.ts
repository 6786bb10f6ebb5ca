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
}
