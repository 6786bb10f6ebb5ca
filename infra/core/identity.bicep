// The one user-assigned managed identity the function app runs as. Storage (host, Durable task
// hub, tables, bulk queue), Key Vault and Application Insights are all reached with it, so no
// key or connection string with a secret is ever stored in an app setting.

@description('Name of the user-assigned managed identity.')
param name string

@description('Azure region.')
param location string

@description('Tags applied to the identity.')
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
