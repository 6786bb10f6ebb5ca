// The alerts an operator needs, as log search alert rules over the Log Analytics workspace, and
// the action group that e-mails them. The app's metrics (src/domain/metric-catalogue.ts) reach
// the workspace through Application Insights as rows of the AppMetrics table: Name is the metric,
// Properties holds its dimensions, Sum the increase of a counter, the sum of a histogram's values
// or a gauge's value. test/unit/infra checks that every query names only metrics and dimensions
// of that contract.

@description('Azure region of the alert rules (the workspace\'s).')
param location string

@description('Tags applied to every resource.')
param tags object = {}

@description('Prefix of the rule and action group names.')
param namePrefix string

@description('Log Analytics workspace the rules query.')
param logAnalyticsName string

@description('E-mail address the action group sends alerts to.')
param alertEmailAddress string

@description('Failure rate alert: percentage of a connector\'s requests failed within 15 minutes.')
param failurePercent int

@description('Failure rate alert: fewest requests in those 15 minutes for the rate to count.')
param failureMinimumRequests int

@description('Throttling alert: seconds spent waiting on throttling per 5 minutes, three windows in a row.')
param throttleWaitSeconds int

@description('Secret expiry alert: days before expiry.')
param secretExpiryDays int

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-07-01' existing = {
  name: logAnalyticsName
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-${namePrefix}'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'prov-ops'
    enabled: true
    emailReceivers: [
      {
        name: 'operators'
        emailAddress: alertEmailAddress
        useCommonAlertSchema: true
      }
    ]
  }
}

// One alert per connector (or per reason) that meets the condition: the dimension columns split
// the rule. Event alerts (a mismatch, a poison message, a quarantine) look back 15 minutes every
// 5 minutes and resolve by themselves 15 minutes after the last event.
var rules = [
  {
    key: 'failure-rate'
    displayName: 'Provisioning: failure rate of a connector'
    description: 'More than ${failurePercent} % of a connector\'s requests (at least ${failureMinimumRequests} in 15 minutes) failed. The workbook shows which actions and error codes.'
    severity: 2
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.requests\''
        '| extend connector = tostring(Properties[\'provisioning.connector\']), outcome = tostring(Properties[\'provisioning.outcome\'])'
        '| summarize requests = sum(Sum), failed = sumif(Sum, outcome == \'failed\') by connector, bin(TimeGenerated, 15m)'
        '| where requests >= ${failureMinimumRequests}'
        '| extend failurePercent = 100.0 * failed / requests'
      ],
      '\n'
    )
    measure: 'failurePercent'
    aggregation: 'Maximum'
    operator: 'GreaterThan'
    threshold: failurePercent
    dimensions: ['connector']
    window: 'PT15M'
    frequency: 'PT5M'
    periods: 1
  }
  {
    key: 'quarantine'
    displayName: 'Provisioning: a connector entered quarantine'
    description: 'A connector entered quarantine: its requests are held until a probe succeeds or an operator releases it. The reason is the error code in the alert\'s dimensions. Resolving this alert does not release the connector: its status does.'
    severity: 1
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.quarantine.entries\''
        '| extend connector = tostring(Properties[\'provisioning.connector\']), reason = tostring(Properties[\'error.type\'])'
        '| project TimeGenerated, connector, reason, entries = Sum'
      ],
      '\n'
    )
    measure: 'entries'
    aggregation: 'Total'
    operator: 'GreaterThan'
    threshold: 0
    dimensions: ['connector', 'reason']
    window: 'PT15M'
    frequency: 'PT5M'
    periods: 1
  }
  {
    key: 'membership-mismatch'
    displayName: 'Provisioning: memberships differ after a write'
    description: 'A request failed with MEMBERSHIP_MISMATCH: after the writes and the re-reads of the visibility window, the target still shows other memberships than requested. GET /api/requests/{id} names the missing and unexpected groups.'
    severity: 2
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.requests\''
        '| where tostring(Properties[\'error.type\']) == \'MEMBERSHIP_MISMATCH\''
        '| extend connector = tostring(Properties[\'provisioning.connector\'])'
        '| project TimeGenerated, connector, mismatches = Sum'
      ],
      '\n'
    )
    measure: 'mismatches'
    aggregation: 'Total'
    operator: 'GreaterThan'
    threshold: 0
    dimensions: ['connector']
    window: 'PT15M'
    frequency: 'PT5M'
    periods: 1
  }
  {
    key: 'poison-messages'
    displayName: 'Provisioning: bulk requests given up'
    description: 'Bulk request messages went to the poison queue (<queue>-poison), each with its reason and the message, password redacted. Fix and resubmit them.'
    severity: 2
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.bulk.poisoned\''
        '| extend reason = tostring(Properties[\'provisioning.poison_reason\'])'
        '| project TimeGenerated, reason, messages = Sum'
      ],
      '\n'
    )
    measure: 'messages'
    aggregation: 'Total'
    operator: 'GreaterThan'
    threshold: 0
    dimensions: ['reason']
    window: 'PT15M'
    frequency: 'PT5M'
    periods: 1
  }
  {
    key: 'poison-waiting'
    displayName: 'Provisioning: bulk requests waiting in the poison queue'
    description: 'Messages are waiting in the bulk poison queue (<queue>-poison). The handler\'s records name their reason, credentials redacted; a message the Functions host moved there itself (each of its takers died) is kept as it was sent, password included: resubmit it and delete it promptly.'
    severity: 2
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.bulk.backlog\''
        '| where tostring(Properties[\'provisioning.queue\']) == \'poison\''
        '| project TimeGenerated, messages = Max'
      ],
      '\n'
    )
    measure: 'messages'
    aggregation: 'Maximum'
    operator: 'GreaterThan'
    threshold: 0
    dimensions: []
    window: 'PT15M'
    frequency: 'PT5M'
    periods: 1
  }
  {
    key: 'secret-expiry'
    displayName: 'Provisioning: a connector credential expires soon'
    description: 'A connector\'s credential expires within ${secretExpiryDays} days (or has expired). Rotate it: infra/README.md, "Rotate a secret".'
    severity: 2
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.secret.time_to_expiry\''
        '| extend connector = tostring(Properties[\'provisioning.connector\'])'
        '| project TimeGenerated, connector, daysLeft = Sum'
      ],
      '\n'
    )
    measure: 'daysLeft'
    aggregation: 'Minimum'
    operator: 'LessThan'
    threshold: secretExpiryDays
    dimensions: ['connector']
    // The value is observed while the app runs: a day covers connectors used or imported daily.
    window: 'P1D'
    frequency: 'PT1H'
    periods: 1
  }
  {
    key: 'sustained-throttling'
    displayName: 'Provisioning: a target keeps throttling'
    description: 'Calls to a connector spent more than ${throttleWaitSeconds} s waiting on throttling (429 or 503 with Retry-After) in each of three 5-minute windows in a row. Requests slow down and may fail with TARGET_THROTTLED; lower the load or the connector\'s concurrency, or ask the target for a higher quota.'
    severity: 3
    query: join(
      [
        'AppMetrics'
        '| where Name == \'provisioning.throttle.wait.duration\''
        '| extend connector = tostring(Properties[\'provisioning.connector\'])'
        '| project TimeGenerated, connector, waitSeconds = Sum'
      ],
      '\n'
    )
    measure: 'waitSeconds'
    aggregation: 'Total'
    operator: 'GreaterThan'
    threshold: throttleWaitSeconds
    dimensions: ['connector']
    window: 'PT5M'
    frequency: 'PT5M'
    periods: 3
  }
]

resource alertRules 'Microsoft.Insights/scheduledQueryRules@2026-03-01' = [
  for rule in rules: {
    name: 'alert-${namePrefix}-${rule.key}'
    location: location
    tags: tags
    kind: 'LogAlert'
    properties: {
      displayName: rule.displayName
      description: rule.description
      severity: rule.severity
      enabled: true
      scopes: [
        workspace.id
      ]
      evaluationFrequency: rule.frequency
      windowSize: rule.window
      // AppMetrics exists in the workspace only once the app has sent its first metric; without
      // this the first deployment would fail to validate the queries against a missing table.
      skipQueryValidation: true
      autoMitigate: true
      criteria: {
        allOf: [
          {
            query: rule.query
            timeAggregation: rule.aggregation
            metricMeasureColumn: rule.measure
            operator: rule.operator
            threshold: rule.threshold
            dimensions: [
              for dimension in rule.dimensions: {
                name: dimension
                operator: 'Include'
                values: [
                  '*'
                ]
              }
            ]
            failingPeriods: {
              numberOfEvaluationPeriods: rule.periods
              minFailingPeriodsToAlert: rule.periods
            }
          }
        ]
      }
      actions: {
        actionGroups: [
          actionGroup.id
        ]
      }
    }
  }
]

