/**
 * Every app setting the service or the Functions host reads for it, with where it is needed.
 * The README's settings table, `local.settings.example.json` and the Bicep template are
 * checked against this list in tests, so a new setting cannot be forgotten in one of them.
 */
export interface SettingDescription {
  name: string;
  /**
   * `azure`: the deployed app cannot start without it. `optional`: has a default.
   * `local`: read by the local host only.
   */
  need: 'azure' | 'optional' | 'local';
  description: string;
  /** `host`: read by the Functions host through host.json, not by src/config. */
  readBy?: 'host';
  /** Set in Azure only with this Durable backend (infra parameter `durableBackend`). */
  durableBackend?: 'scheduler' | 'storage';
}

export const SETTINGS: readonly SettingDescription[] = [
  {
    name: 'PROVISIONING_CONNECTORS',
    need: 'azure',
    description:
      'JSON array of connector settings (kind scim or graph); secrets are named, never given',
  },
  {
    name: 'SECRET_STORE',
    need: 'azure',
    description: '`keyvault` in Azure; `local` (the default) for the local host and tests',
  },
  {
    name: 'KEY_VAULT_URL',
    need: 'azure',
    description: 'https URL of the Key Vault holding connector secrets and transient passwords',
  },
  {
    name: 'SECRET_CACHE_SECONDS',
    need: 'optional',
    description: 'How long a secret read from Key Vault is reused (default 300): rotation delay',
  },
  {
    name: 'AzureWebJobsStorage__accountName',
    need: 'azure',
    description:
      'Storage account of the task hub, the tables and the bulk queue, reached with the managed identity',
  },
  {
    name: 'AzureWebJobsStorage__credential',
    need: 'azure',
    description: '`managedidentity`: identity-based connection (no keys)',
  },
  {
    name: 'AzureWebJobsStorage__clientId',
    need: 'azure',
    description: 'Client ID of the user-assigned managed identity used for storage',
  },
  {
    name: 'AZURE_CLIENT_ID',
    need: 'azure',
    description:
      'Client ID of the user-assigned managed identity used by DefaultAzureCredential (Key Vault, tables)',
  },
  {
    name: 'AzureWebJobsStorage',
    need: 'local',
    description:
      'Connection string (`UseDevelopmentStorage=true` for Azurite) when not using the identity-based settings',
  },
  {
    name: 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING',
    need: 'azure',
    readBy: 'host',
    durableBackend: 'scheduler',
    description:
      'The Durable Task Scheduler, as host.json names it: `Endpoint=<scheduler endpoint>;Authentication=ManagedIdentity;ClientID=<identity client ID>` (no key exists)',
  },
  {
    name: 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__type',
    need: 'azure',
    readBy: 'host',
    durableBackend: 'storage',
    description:
      '`AzureStorage`: overrides the Durable backend of host.json with the Azure Storage account',
  },
  {
    name: 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName',
    need: 'azure',
    readBy: 'host',
    durableBackend: 'storage',
    description:
      '`AzureWebJobsStorage`: the Azure Storage backend uses the host storage (its identity settings)',
  },
  {
    name: 'BULK_QUEUE_NAME',
    need: 'optional',
    description:
      'Storage queue of bulk provisioning requests (default provisioning-requests; poison queue <name>-poison)',
  },
  {
    name: 'WRITE_INTENT_RETENTION_DAYS',
    need: 'optional',
    description:
      "Days the write intents of a request are kept after the day it was received (default 45, at least a connector's quarantine.maxHoldHours plus 7 days): a daily timer deletes older ones",
  },
  {
    name: 'LOG_LEVEL',
    need: 'optional',
    description: 'debug, info (default), warn or error',
  },
  {
    name: 'APPLICATIONINSIGHTS_CONNECTION_STRING',
    need: 'optional',
    description:
      'Application Insights: the Functions host and the app export traces, metrics and logs there with OpenTelemetry (none when unset)',
  },
  {
    name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING',
    need: 'optional',
    description:
      '`ClientId=<identity client ID>;Authorization=AAD`: the export authenticates with that managed identity (Entra ID), as the host does',
  },
  {
    name: 'TELEMETRY_ACCOUNT_IDS',
    need: 'optional',
    description:
      '`true` lets account IDs (personal data) appear on exported spans and logs; `false` (the default) keeps them out. Metrics never carry them',
  },
  {
    name: 'languageWorkers__node__arguments',
    need: 'optional',
    readBy: 'host',
    description:
      'Arguments of the Node worker process: the template gives `--heap-growing-percent=100` (the heap grows to twice what a full collection kept, not up to four times: peak memory about a third lower at no measurable CPU; `npm start` and the bench run the service with it too), and on Node 22 also `--experimental-async-context-frame` (async context without async hooks: tracing costs about 40 % less CPU)',
  },
  {
    name: 'LOCAL_SECRETS',
    need: 'local',
    description: 'JSON object secret name -> value for SECRET_STORE=local (development only)',
  },
  {
    name: 'LOCAL_HOST_PORT',
    need: 'local',
    description: 'Port of the local host on 127.0.0.1 (default 7071)',
  },
  {
    name: 'LOCAL_HOST_API_KEY',
    need: 'local',
    description:
      'API key the local host demands (random and printed at start when unset; never printed when set)',
  },
];
