// The operations workbook: per-connector panels for every metric of the app
// (src/domain/metric-catalogue.ts), over the Log Analytics workspace that holds them (AppMetrics).
// The workbook itself is provisioning-workbook.json, as the workbook editor saves it (Advanced
// editor, Gallery template); its queries run against this workspace.

@description('Azure region.')
param location string

@description('Tags applied to the workbook.')
param tags object = {}

@description('Log Analytics workspace the panels query.')
param logAnalyticsName string

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-07-01' existing = {
  name: logAnalyticsName
}

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(workspace.id, 'provisioning-service-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'Provisioning service'
    category: 'workbook'
    sourceId: workspace.id
    version: '1.0'
    serializedData: replace(loadTextContent('provisioning-workbook.json'), '__WORKSPACE_RESOURCE_ID__', workspace.id)
  }
}
