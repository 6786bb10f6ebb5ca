// Role assignments: exactly the data-plane roles the app needs, each at the narrowest scope that
// works, plus (optionally) the operator's right to enter connector secrets.
// Role IDs are Azure built-in role definition IDs (learn.microsoft.com/azure/role-based-access-
// control/built-in-roles); test/unit/infra checks the compiled assignments by role name, principal
// and scope.

@description('Principal (object) ID of the function app\'s user-assigned managed identity.')
param appPrincipalId string

@description('Object ID of the operator who enters connector secrets; empty: no operator role.')
param operatorPrincipalId string

@description('Principal type of the operator: User, or Group for an operators\' group.')
@allowed(['User', 'Group', 'ServicePrincipal'])
param operatorPrincipalType string

@description('Storage account the app identity gets blob, queue and table roles on.')
param storageAccountName string

@description('Key Vault the app identity (and the operator) gets a secrets role on.')
param keyVaultName string

@description('Application Insights component the app identity publishes telemetry to.')
param applicationInsightsName string

@description('Durable Task Scheduler the app identity works on; empty with the Azure Storage backend.')
param durableTaskSchedulerName string

var roles = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b' // Storage Blob Data Owner
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88' // Storage Queue Data Contributor
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3' // Storage Table Data Contributor
  keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7' // Key Vault Secrets Officer
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb' // Monitoring Metrics Publisher
  durableTaskDataContributor: '0ad04412-c4d5-4796-b79c-f76d14c8d402' // Durable Task Data Contributor
}

// Host storage with an identity, whichever the Durable backend: Blob Data Owner (host locks, timer
// leases, the deployment package; with the Azure Storage backend also Durable leases), Queue Data
// Contributor (the bulk queue trigger and its poison queue; with the Azure Storage backend also
// Durable control and work-item queues), Table Data Contributor (the journal, catalogue, link,
// lease and intent tables; with the Azure Storage backend also Durable history and instances).
// Functions "Connecting to host storage with an identity"; Durable Functions "Configure managed
// identity".
var storageRoles = [
  roles.storageBlobDataOwner
  roles.storageQueueDataContributor
  roles.storageTableDataContributor
]

resource storage 'Microsoft.Storage/storageAccounts@2025-06-01' existing = {
  name: storageAccountName
}

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' existing = {
  name: keyVaultName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource scheduler 'Microsoft.DurableTask/schedulers@2025-11-01' existing = if (!empty(durableTaskSchedulerName)) {
  name: durableTaskSchedulerName
}

resource appStorageRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in storageRoles: {
    name: guid(storage.id, appPrincipalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

// The app reads connector secrets and also sets and deletes the transient per-request password
// secrets (DESIGN invariant 5). Key Vault Secrets User only reads; Secrets Officer is the narrowest
// built-in role that also sets and deletes. Its scope is this vault alone; names of runtime
// secrets are not known in advance, so a per-secret scope cannot cover them.
resource appVaultRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, appPrincipalId, roles.keyVaultSecretsOfficer)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsOfficer)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Application Insights with local authentication disabled accepts telemetry only from an identity
// holding Monitoring Metrics Publisher on the component.
resource appTelemetryRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, appPrincipalId, roles.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// The Durable Functions host on the scheduler backend starts, runs and queries orchestrations
// there. Durable Task Data Contributor is the role Microsoft names for Durable Functions apps
// (Durable Task Worker is for apps that only process orchestrations; this one also starts and
// queries them); scoped to this one scheduler.
resource appSchedulerRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(durableTaskSchedulerName)) {
  name: guid(scheduler.id, appPrincipalId, roles.durableTaskDataContributor)
  scope: scheduler
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.durableTaskDataContributor)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// In RBAC mode nobody, not even the subscription owner, can write a secret without a data-plane
// role; the operator gets one on this vault so that the `az keyvault secret set` commands work.
resource operatorVaultRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(vault.id, operatorPrincipalId, roles.keyVaultSecretsOfficer)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsOfficer)
    principalId: operatorPrincipalId
    principalType: operatorPrincipalType
  }
}
