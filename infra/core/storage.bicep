// Storage account for the Functions host, the Durable task hub (Azure Storage backend, hub name in
// host.json), the journal (each account's record and lease beside its entries), catalogue and
// intent tables and the bulk provisioning queue.
// Shared-key access is disabled: only Entra ID (managed identity) callers get in, so no account key
// and no key-bearing connection string can be used against it.

@description('Storage account name: 3-24 lowercase letters and digits.')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region.')
param location string

@description('Tags applied to the account.')
param tags object = {}

@description('Blob container that holds the Flex Consumption deployment package.')
param deploymentContainerName string

@description('Queue of bulk provisioning requests (BULK_QUEUE_NAME); its "-poison" twin is created too.')
param bulkQueueName string

// The app creates these tables when absent; creating them here makes them visible from the first
// deployment and keeps the names in one reviewed place (src/store).
var tableNames = [
  'ProvisioningJournal'
  'RoleCatalogue'
  'WriteIntents'
  'CompatibilityRuns'
  'RequestIndex'
  'ConnectorQuarantine'
  'DriftFindings'
  'ReconciliationState'
  'ConnectorStates'
]

resource storage 'Microsoft.Storage/storageAccounts@2025-06-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2025-06-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2025-06-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2025-06-01' = {
  parent: storage
  name: 'default'
}

// The queue trigger moves a message to "<name>-poison" after 5 dequeues (host.json
// maxDequeueCount); creating it up front lets operators watch it before the first failure.
// "drift-events" carries a message per new drift finding for the governance workflow
// (src/store/drift-events.ts): created here so a consumer can subscribe before the first one.
resource queues 'Microsoft.Storage/storageAccounts/queueServices/queues@2025-06-01' = [
  for queueName in [bulkQueueName, '${bulkQueueName}-poison', 'drift-events']: {
    parent: queueService
    name: queueName
  }
]

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2025-06-01' = {
  parent: storage
  name: 'default'
}

resource tables 'Microsoft.Storage/storageAccounts/tableServices/tables@2025-06-01' = [
  for tableName in tableNames: {
    parent: tableService
    name: tableName
  }
]

output name string = storage.name
output id string = storage.id
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output deploymentContainerName string = deploymentContainer.name
