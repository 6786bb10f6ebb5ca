// First: telemetry must be set up before anything else loads (src/telemetry/azure-monitor.ts).
import '../src/telemetry/start-azure-monitor';
import { app } from '@azure/functions';
import * as df from 'durable-functions';
import { bulkRequestHandler } from '../src/api/bulk-request-handler';
import { importTimerHandler } from '../src/api/import-timer';
import { INTENT_PURGE_SCHEDULE, intentPurgeTimerHandler } from '../src/api/intent-purge-timer';
import {
  PASSWORD_SWEEP_SCHEDULE,
  passwordSweepTimerHandler,
} from '../src/api/password-sweep-timer';
import { reconcileTimerHandler } from '../src/api/reconcile-timer';
import { apiRoutes } from '../src/api/routes';
import { processConfiguration } from '../src/runtime/process-configuration';
import { processServices } from '../src/runtime/service';
import { ACTIVITIES_WITH_CLIENT, createActivityHandlers } from '../src/workflows/activities';
import { DurableOrchestrationClient } from '../src/workflows/durable-orchestration-client';
import { ORCHESTRATORS } from '../src/workflows/orchestrators';

// Registrations only (DESIGN: functions/): every handler lives in src/.
const config = processConfiguration();
const deps = {
  services: processServices,
  orchestrations: (context: Parameters<typeof df.getClient>[0]) =>
    new DurableOrchestrationClient(df.getClient(context)),
  now: () => new Date(),
  appServiceAuthentication: config.appServiceAuthentication,
};

for (const route of apiRoutes(deps)) {
  app.http(route.name, {
    methods: [route.method],
    route: route.route,
    authLevel: route.authLevel,
    extraInputs: [df.input.durableClient()],
    handler: route.handler,
  });
}

for (const [name, orchestrator] of Object.entries(ORCHESTRATORS)) {
  df.app.orchestration(name, orchestrator);
}
const activities = createActivityHandlers(processServices, deps.orchestrations);
for (const [name, handler] of Object.entries(activities)) {
  df.app.activity(name, {
    handler: handler as (input: unknown) => Promise<unknown>,
    ...((ACTIVITIES_WITH_CLIENT as readonly string[]).includes(name)
      ? { extraInputs: [df.input.durableClient()] }
      : {}),
  });
}

app.storageQueue('bulkRequests', {
  queueName: config.bulkQueueName,
  connection: 'AzureWebJobsStorage',
  extraInputs: [df.input.durableClient()],
  handler: bulkRequestHandler(deps),
});

for (const connector of config.connectors) {
  if (connector.importSchedule === undefined) continue;
  app.timer(`import-${connector.name}`, {
    schedule: connector.importSchedule,
    extraInputs: [df.input.durableClient()],
    handler: importTimerHandler(deps, connector.name),
  });
}

for (const connector of config.connectors) {
  if (connector.reconcileSchedule === undefined) continue;
  app.timer(`reconcile-${connector.name}`, {
    schedule: connector.reconcileSchedule,
    extraInputs: [df.input.durableClient()],
    handler: reconcileTimerHandler(deps, connector.name),
  });
}

app.timer('purge-write-intents', {
  schedule: INTENT_PURGE_SCHEDULE,
  handler: intentPurgeTimerHandler(deps, config.writeIntentRetentionDays),
});

app.timer('sweep-request-passwords', {
  schedule: PASSWORD_SWEEP_SCHEDULE,
  // Asks each secret's request how it stands: the Durable client.
  extraInputs: [df.input.durableClient()],
  handler: passwordSweepTimerHandler(deps),
});
