// The function app on the Flex Consumption plan (FC1, Linux), Node.js 22, running as the
// user-assigned managed identity. Flex Consumption takes the language and version from
// functionAppConfig.runtime, so FUNCTIONS_WORKER_RUNTIME and FUNCTIONS_EXTENSION_VERSION are not
// app settings here; the deployment package lives in a blob container reached with the identity.

@description('Function app name (also its default host name).')
param name string

@description('Flex Consumption plan name.')
param planName string

@description('Azure region.')
param location string

@description('Tags applied to the plan; the site also gets the azd service tag.')
param tags object = {}

@description('Resource ID of the user-assigned managed identity the app runs as.')
param identityId string

@description('Client ID of that identity (AzureWebJobsStorage__clientId, AZURE_CLIENT_ID).')
param identityClientId string

@description('Storage account of the host, the task hub, the tables and the bulk queue.')
param storageAccountName string

@description('Blob endpoint of that account, ending in a slash.')
param storageBlobEndpoint string

@description('Blob container holding the deployment package.')
param deploymentContainerName string

@description('Application Insights component the app sends telemetry to.')
param applicationInsightsName string

@description('Key Vault URI (KEY_VAULT_URL).')
param keyVaultUri string

@description('Connector settings: the value of PROVISIONING_CONNECTORS, one object per connector.')
param connectors array

@description('Queue of bulk provisioning requests (BULK_QUEUE_NAME).')
param bulkQueueName string

@description('Seconds a secret read from Key Vault is reused (SECRET_CACHE_SECONDS): the rotation delay.')
param secretCacheSeconds int

@description('Days the write intents of a request are kept (WRITE_INTENT_RETENTION_DAYS).')
param writeIntentRetentionDays int

@description('LOG_LEVEL of the app.')
@allowed(['debug', 'info', 'warn', 'error'])
param logLevel string

@description('TELEMETRY_ACCOUNT_IDS: account IDs may appear on exported spans and logs.')
param telemetryAccountIds bool

@description('Node.js major version; every release of it must satisfy package.json engines (test/unit/infra).')
param nodeVersion string

@description('Upper bound of Flex Consumption instances (40-1000).')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int

@description('Memory per instance in MB.')
@allowed([2048, 4096])
param instanceMemoryMB int

@description('Durable Functions backend: the Durable Task Scheduler, or the Azure Storage account.')
@allowed(['scheduler', 'storage'])
param durableBackend string

@description('With the scheduler backend: the app setting host.json names for the connection (storageProvider.connectionStringName).')
param durableConnectionSettingName string

@description('With the scheduler backend: its endpoint, https://<scheduler>.<region>.durabletask.io.')
param durableTaskSchedulerEndpoint string

@description('Turn on App Service authentication with Entra ID: the console\'s sign-in and the signed-in entrance.')
param enableEntraAuth bool

@description('Client (application) ID of the app registration that represents the service.')
param apiClientId string

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource plan 'Microsoft.Web/serverfarms@2025-03-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

resource site 'Microsoft.Web/sites@2025-03-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    publicNetworkAccess: 'Enabled'
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storageBlobEndpoint}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: nodeVersion
      }
    }
  }
}

// Every setting src/config/settings-catalogue.ts lists for Azure (`need: 'azure'` or 'optional') is
// here or in durableSettings below (those of the chosen backend), and nothing else (checked on the
// compiled template in test/unit/infra). The host and the app both read the Application Insights pair.
// Values are names, URLs and client IDs only: secrets stay in Key Vault and are read by name at
// run time.
var appSettings = {
  AzureWebJobsStorage__accountName: storageAccountName
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  AZURE_CLIENT_ID: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  PROVISIONING_CONNECTORS: string(connectors)
  SECRET_STORE: 'keyvault'
  KEY_VAULT_URL: keyVaultUri
  SECRET_CACHE_SECONDS: string(secretCacheSeconds)
  BULK_QUEUE_NAME: bulkQueueName
  LOG_LEVEL: logLevel
  WRITE_INTENT_RETENTION_DAYS: string(writeIntentRetentionDays)
  TELEMETRY_ACCOUNT_IDS: telemetryAccountIds ? 'true' : 'false'
  // The heap may grow to twice what the last full collection kept, not V8's up to four times:
  // the service keeps little between requests, and its peak memory halves at no measurable
  // CPU (README, "Performance"). Node 22's AsyncLocalStorage without async hooks (the default
  // from Node 24, where the flag is refused): tracing then costs about 40 % less CPU (README,
  // "What telemetry costs"); on 22 alone, so a runtime change cannot stop the worker.
  languageWorkers__node__arguments: nodeVersion == '22'
    ? '${workerHeapArgument} --experimental-async-context-frame'
    : workerHeapArgument
}

// package.json's start and bench scripts give the service the same (a test checks it).
var workerHeapArgument = '--heap-growing-percent=100'

// host.json names the Durable Task Scheduler as the backend, reached through the app setting it
// names with the identity (no key exists). The Azure Storage backend overrides the provider in
// host.json with app settings (AzureFunctionsJobHost__<path>, the host's documented override),
// on the storage account the host already reaches with the identity.
var durableSettings = durableBackend == 'scheduler'
  ? {
      '${durableConnectionSettingName}': 'Endpoint=${durableTaskSchedulerEndpoint};Authentication=ManagedIdentity;ClientID=${identityClientId}'
    }
  : {
      AzureFunctionsJobHost__extensions__durableTask__storageProvider__type: 'AzureStorage'
      AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName: 'AzureWebJobsStorage'
    }

resource siteAppSettings 'Microsoft.Web/sites/config@2025-03-01' = {
  parent: site
  name: 'appsettings'
  properties: union(appSettings, durableSettings)
}

// App Service authentication with Entra ID signs people in for the console and vouches for the
// caller (x-ms-client-principal) at /api/signed-in/, where the API checks the app roles
// Provisioning.Reader and Provisioning.Operator. It lets anonymous requests through: function
// keys keep guarding /api/<route> (the governance workflow), the console's files are public,
// and the signed-in entrance answers 401 with the sign-in link itself. No client secret: sign-in
// uses OpenID Connect with ID tokens (the registration issues them), and the app needs no token
// of its own for anything downstream.
resource siteAuth 'Microsoft.Web/sites/config@2025-03-01' = if (enableEntraAuth) {
  parent: site
  name: 'authsettingsV2'
  properties: {
    platform: {
      enabled: true
    }
    globalValidation: {
      requireAuthentication: false
      unauthenticatedClientAction: 'AllowAnonymous'
    }
    httpSettings: {
      requireHttps: true
    }
    identityProviders: {
      azureActiveDirectory: {
        enabled: true
        registration: {
          clientId: apiClientId
          openIdIssuer: '${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'
        }
        validation: {
          allowedAudiences: [
            'api://${apiClientId}'
            apiClientId
          ]
        }
      }
    }
    login: {
      tokenStore: {
        enabled: false
      }
    }
  }
}

output name string = site.name
output defaultHostName string = site.properties.defaultHostName
