// Provisions the provisioning service for `azd up`: a resource group holding a Flex Consumption
// function app (Node.js 22) with a user-assigned managed identity, the Durable Task Scheduler as
// its Durable backend (or its storage account, by parameter), its storage account (host, tables,
// bulk queue; identity access only), a Key Vault in RBAC mode with purge protection, Application
// Insights on a Log Analytics workspace, the alert rules with their action group, and the
// operations workbook. Connector settings, including each connector's import schedule, come from
// the `connectors` parameter: adding a connector is a parameter change. See infra/README.md.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name; also names the resource group and seeds the resource names.')
param environmentName string

@minLength(1)
@description('Region of every resource; it must offer the Flex Consumption plan.')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Resource group name; empty: rg-<environmentName>.')
param resourceGroupName string = ''

@description('''Connector settings, one object per connector, written into PROVISIONING_CONNECTORS.
Secrets are given by Key Vault secret NAME (auth.tokenSecret, auth.passwordSecret, clientSecretName),
never by value. Each connector's catalogue import runs on its own importSchedule (NCRONTAB, six fields).''')
param connectors array = []

@description('Queue of bulk provisioning requests; "<name>-poison" receives messages that failed 5 times.')
@minLength(3)
@maxLength(56)
param bulkQueueName string = 'provisioning-requests'

@description('Seconds a secret read from Key Vault is reused before it is read again (rotation delay).')
@minValue(0)
@maxValue(86400)
param secretCacheSeconds int = 300

@description('Days the write intents of a request are kept (WRITE_INTENT_RETENTION_DAYS): at least the longest quarantine.maxHoldHours of a connector plus 7 days.')
@minValue(1)
@maxValue(3650)
param writeIntentRetentionDays int = 45

@description('LOG_LEVEL of the app.')
@allowed(['debug', 'info', 'warn', 'error'])
param logLevel string = 'info'

@description('TELEMETRY_ACCOUNT_IDS: account IDs (personal data) may appear on exported spans and logs. Metrics never carry them.')
param telemetryAccountIds bool = false

@description('Flex Consumption: upper bound of instances the app scales out to.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Flex Consumption: memory per instance in MB.')
@allowed([2048, 4096])
param instanceMemoryMB int = 2048

@description('Object ID of the operator (user or group) allowed to enter connector secrets; azd passes the signed-in user.')
param operatorPrincipalId string = ''

@description('Principal type of operatorPrincipalId.')
@allowed(['User', 'Group', 'ServicePrincipal'])
param operatorPrincipalType string = 'User'

@description('Durable Functions backend: the Durable Task Scheduler (recommended), or the Azure Storage account.')
@allowed(['scheduler', 'storage'])
param durableBackend string = 'scheduler'

@description('With the scheduler backend: Consumption (per action, up to 500 actions/s) or Dedicated (capacity units).')
@allowed(['Consumption', 'Dedicated'])
param schedulerSku string = 'Consumption'

@description('With a Dedicated scheduler: capacity units of 2,000 actions/s each (3 for high availability).')
@minValue(1)
@maxValue(3)
param schedulerCapacity int = 1

@description('E-mail address the alerts go to (the action group\'s receiver).')
@minLength(3)
param alertEmailAddress string

@description('Alert when more than this percentage of a connector\'s requests fail within 15 minutes.')
@minValue(1)
@maxValue(100)
param alertFailurePercent int = 20

@description('...and the connector finished at least this many requests in those 15 minutes.')
@minValue(1)
param alertFailureMinimumRequests int = 10

@description('Alert when calls to a connector spend more than this many seconds waiting on throttling in each of three 5-minute windows in a row.')
@minValue(1)
param alertThrottleWaitSeconds int = 120

@description('Alert when a connector\'s credential expires within this many days.')
@minValue(1)
@maxValue(90)
param alertSecretExpiryDays int = 14

@description('App Service authentication with Entra ID: the console\'s sign-in, and callers with the app roles Provisioning.Reader / Provisioning.Operator at /api/signed-in/. Function keys keep guarding /api/.')
param enableEntraAuth bool = false

@description('With enableEntraAuth: client ID of the app registration that represents the service (its app roles, the console\'s sign-in).')
param apiClientId string = ''

// Node.js major version of the Flex Consumption runtime; must satisfy package.json engines.
var nodeVersion = '22'

var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
}
var functionAppName = 'func-prov-${resourceToken}'
var keyVaultName = 'kv-prov-${resourceToken}'
// A deployment container name is at most 63 characters; the app name is cut so it always fits.
var deploymentContainerName = 'app-package-${take(functionAppName, 32)}-${take(resourceToken, 7)}'

// The Durable task hub and the app setting of the scheduler's connection, as host.json names them:
// the one place the host reads them from.
var durableTask = loadJsonContent('../host.json').extensions.durableTask

// Every connector secret by name: bearer token, Basic password or Graph client secret.
var connectorSecretNames = filter(
  map(connectors, connector => connector.kind == 'graph' ? (connector.?clientSecretName ?? '') : (connector.?auth.?tokenSecret ?? (connector.?auth.?passwordSecret ?? ''))),
  secretName => !empty(secretName)
)

resource rg 'Microsoft.Resources/resourceGroups@2025-04-01' = {
  name: !empty(resourceGroupName) ? resourceGroupName : 'rg-${environmentName}'
  location: location
  tags: tags
}

module identity 'core/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: 'id-prov-${resourceToken}'
    location: location
    tags: tags
  }
}

module storage 'core/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: 'stprov${resourceToken}'
    location: location
    tags: tags
    deploymentContainerName: deploymentContainerName
    bulkQueueName: bulkQueueName
  }
}

module monitoring 'core/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: 'log-prov-${resourceToken}'
    applicationInsightsName: 'appi-prov-${resourceToken}'
    location: location
    tags: tags
  }
}

module keyVault 'core/key-vault.bicep' = {
  name: 'keyVault'
  scope: rg
  params: {
    name: keyVaultName
    location: location
    tags: tags
  }
}

module scheduler 'core/durable-task-scheduler.bicep' = if (durableBackend == 'scheduler') {
  name: 'scheduler'
  scope: rg
  params: {
    name: 'dts-prov-${resourceToken}'
    location: location
    tags: tags
    taskHubName: durableTask.hubName
    skuName: schedulerSku
    capacity: schedulerCapacity
  }
}

module access 'app/access.bicep' = {
  name: 'access'
  scope: rg
  params: {
    appPrincipalId: identity.outputs.principalId
    operatorPrincipalId: operatorPrincipalId
    operatorPrincipalType: operatorPrincipalType
    storageAccountName: storage.outputs.name
    keyVaultName: keyVault.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    durableTaskSchedulerName: scheduler.?outputs.name ?? ''
  }
}

module functionApp 'app/function-app.bicep' = {
  name: 'functionApp'
  scope: rg
  params: {
    name: functionAppName
    planName: 'plan-prov-${resourceToken}'
    location: location
    tags: tags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    storageBlobEndpoint: storage.outputs.blobEndpoint
    deploymentContainerName: storage.outputs.deploymentContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    keyVaultUri: keyVault.outputs.uri
    connectors: connectors
    bulkQueueName: bulkQueueName
    secretCacheSeconds: secretCacheSeconds
    writeIntentRetentionDays: writeIntentRetentionDays
    logLevel: logLevel
    telemetryAccountIds: telemetryAccountIds
    nodeVersion: nodeVersion
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    durableBackend: durableBackend
    durableConnectionSettingName: durableTask.storageProvider.connectionStringName
    durableTaskSchedulerEndpoint: scheduler.?outputs.endpoint ?? ''
    enableEntraAuth: enableEntraAuth
    apiClientId: apiClientId
  }
  // The host starts as soon as the site exists: its roles must be in place first, or the first
  // start fails on storage and Key Vault.
  dependsOn: [
    access
  ]
}

module alerts 'app/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    location: location
    tags: tags
    namePrefix: 'prov-${resourceToken}'
    logAnalyticsName: monitoring.outputs.logAnalyticsName
    alertEmailAddress: alertEmailAddress
    failurePercent: alertFailurePercent
    failureMinimumRequests: alertFailureMinimumRequests
    throttleWaitSeconds: alertThrottleWaitSeconds
    secretExpiryDays: alertSecretExpiryDays
  }
}

module workbook 'app/workbook.bicep' = {
  name: 'workbook'
  scope: rg
  params: {
    location: location
    tags: tags
    logAnalyticsName: monitoring.outputs.logAnalyticsName
  }
}

output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name
output FUNCTION_APP_URL string = 'https://${functionApp.outputs.defaultHostName}'
output CONSOLE_URL string = 'https://${functionApp.outputs.defaultHostName}/api/console/'
output KEY_VAULT_NAME string = keyVault.outputs.name
// One command per connector secret, one per line; each reads the value from a hidden prompt, so the
// value never passes through Bicep, an output, an app setting or the shell history. A string, not
// an array: azd keeps an array output as JSON text, which the post-provision hook would print as
// one line with escaped quotes that cannot be pasted. Secret names only: the linter's
// outputs-should-not-contain-secrets rule stays on for this output.
output CONNECTOR_SECRET_COMMANDS string = join(
  map(
    connectorSecretNames,
    secretName =>
      'read -rs SECRET_VALUE && az keyvault secret set --vault-name ${keyVaultName} --name ${secretName} --value "$SECRET_VALUE" --output none && unset SECRET_VALUE'
  ),
  '\n'
)
