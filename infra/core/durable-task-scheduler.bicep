// Durable Task Scheduler: the managed backend of Durable Functions that Microsoft recommends (the
// highest throughput, identity-only access, its own dashboard). One scheduler with the one task
// hub whose name host.json gives (extensions.durableTask.hubName). The app reaches it with its
// managed identity, holding Durable Task Data Contributor on this scheduler (app/access.bicep).

@description('Scheduler name: 3-64 letters, digits and hyphens.')
@minLength(3)
@maxLength(64)
param name string

@description('Azure region.')
param location string

@description('Tags applied to the scheduler.')
param tags object = {}

@description('Task hub name: the hubName of host.json, so the host and the hub agree.')
param taskHubName string

@description('Consumption: billed per action, up to 500 actions/s, 30 days of retention. Dedicated: capacity units of 2,000 actions/s each, up to 90 days.')
@allowed(['Consumption', 'Dedicated'])
param skuName string

@description('Dedicated only: capacity units (1-3; 3 for high availability).')
@minValue(1)
@maxValue(3)
param capacity int

resource scheduler 'Microsoft.DurableTask/schedulers@2025-11-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    sku: skuName == 'Dedicated'
      ? {
          name: skuName
          capacity: capacity
        }
      : {
          name: skuName
        }
    // An empty list denies every caller. Flex Consumption has no fixed outbound addresses, so the
    // network is open and access is decided by Entra ID identity and role alone.
    ipAllowlist: [
      '0.0.0.0/0'
    ]
  }
}

resource taskHub 'Microsoft.DurableTask/schedulers/taskHubs@2025-11-01' = {
  parent: scheduler
  name: taskHubName
}

output name string = scheduler.name
output endpoint string = scheduler.properties.endpoint
output taskHubName string = taskHub.name
