// Key Vault for connector secrets (bearer tokens, Basic passwords, Graph client secrets), which the
// operator enters, and for the transient per-request password secrets the app sets and deletes.
// RBAC mode only (no access policies); purge protection so a deleted secret can be recovered for
// the retention period and never destroyed early by anyone, including the app.

@description('Key Vault name: 3-24 letters, digits and dashes.')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region.')
param location string

@description('Tags applied to the vault.')
param tags object = {}

@description('Days a deleted secret (or the vault) stays recoverable: 7-90.')
@minValue(7)
@maxValue(90)
param softDeleteRetentionInDays int = 90

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: softDeleteRetentionInDays
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForDiskEncryption: false
    enabledForTemplateDeployment: false
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

output name string = vault.name
output uri string = vault.properties.vaultUri
