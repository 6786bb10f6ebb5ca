// Log Analytics workspace and a workspace-based Application Insights component. Local
// (instrumentation-key) authentication is disabled, so telemetry is accepted only from callers
// that present an Entra ID token: the function app's managed identity, which holds Monitoring
// Metrics Publisher on the component (see app/access.bicep).

@description('Log Analytics workspace name.')
param logAnalyticsName string

@description('Application Insights component name.')
param applicationInsightsName string

@description('Azure region.')
param location string

@description('Tags applied to both resources.')
param tags object = {}

@description('Days Log Analytics keeps data; 30 is the included retention.')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

@description('Daily ingestion cap in GB (-1: no cap). A cap bounds cost if a loop floods the logs.')
param dailyQuotaGb int = -1

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2025-07-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    workspaceCapping: {
      dailyQuotaGb: dailyQuotaGb
    }
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    IngestionMode: 'LogAnalytics'
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = applicationInsights.name
output logAnalyticsName string = logAnalytics.name
