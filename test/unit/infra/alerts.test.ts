import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/domain/error-catalogue';
import { onlyResource, resourcesOfType } from './arm-snapshot';
import { codeSpans, tableUnder } from '../../support/markdown-table';
import { describeCompiled, repoRoot, template, type PredictedResource } from './compiled-template';
import { contractProblems, metricQueryReferences } from './metric-queries';

interface AlertCondition {
  query: string;
  timeAggregation: string;
  metricMeasureColumn: string;
  operator: string;
  threshold: number;
  dimensions: { name: string; operator: string; values: string[] }[];
  failingPeriods: { numberOfEvaluationPeriods: number; minFailingPeriodsToAlert: number };
}

interface AlertRule {
  displayName: string;
  description: string;
  scopes: string[];
  evaluationFrequency: string;
  windowSize: string;
  autoMitigate: boolean;
  criteria: { allOf: AlertCondition[] };
  actions: { actionGroups: string[] };
}

/** The log search alert rules of the snapshot, by the key that ends their name. */
function alertRules(): Record<string, AlertRule> {
  return Object.fromEntries(
    resourcesOfType(template().snapshot, 'Microsoft.Insights/scheduledQueryRules').map(
      (rule: PredictedResource) => [
        /-(failure-rate|quarantine|membership-mismatch|poison-messages|poison-waiting|secret-expiry|sustained-throttling)$/.exec(
          rule.name,
        )?.[1] ?? rule.name,
        rule.properties as unknown as AlertRule,
      ],
    ),
  );
}

const condition = (rule: AlertRule): AlertCondition => {
  expect(rule.criteria.allOf).toHaveLength(1);
  return rule.criteria.allOf[0]!;
};

/** A main.bicep parameter's default: the thresholds are parameters, not numbers in rules. */
const defaultOf = (name: string): unknown => template().template.parameters?.[name]?.defaultValue;

describeCompiled('alert rules of the compiled template', () => {
  it('are the six issue 19 asks for and one for what waits in the poison queue, each on the metric that shows its condition', () => {
    const rules = alertRules();
    expect(Object.keys(rules).sort()).toEqual([
      'failure-rate',
      'membership-mismatch',
      'poison-messages',
      'poison-waiting',
      'quarantine',
      'secret-expiry',
      'sustained-throttling',
    ]);
    const metricsOf = (key: string): string[] =>
      metricQueryReferences(condition(rules[key]!).query).metrics;
    expect(metricsOf('failure-rate')).toEqual(['provisioning.requests']);
    expect(metricsOf('quarantine')).toEqual(['provisioning.quarantine.entries']);
    expect(metricsOf('membership-mismatch')).toEqual(['provisioning.requests']);
    expect(metricQueryReferences(condition(rules['membership-mismatch']!).query).values).toEqual([
      'MEMBERSHIP_MISMATCH',
    ]);
    expect(ERROR_CODES).toContain('MEMBERSHIP_MISMATCH');
    expect(metricsOf('poison-messages')).toEqual(['provisioning.bulk.poisoned']);
    // A message the Functions host moved itself is counted by no handler: the queue shows it.
    expect(metricsOf('poison-waiting')).toEqual(['provisioning.bulk.backlog']);
    expect(metricQueryReferences(condition(rules['poison-waiting']!).query).values).toEqual([
      'poison',
    ]);
    expect(metricsOf('secret-expiry')).toEqual(['provisioning.secret.time_to_expiry']);
    expect(metricsOf('sustained-throttling')).toEqual(['provisioning.throttle.wait.duration']);
  });

  it('query only metrics, dimensions and values of the metric contract', () => {
    const problems = Object.entries(alertRules()).flatMap(([key, rule]) =>
      contractProblems(condition(rule).query, key),
    );
    expect(problems).toEqual([]);
  });

  it('would name a metric, a dimension or a value the contract does not have', () => {
    const query = [
      'AppMetrics',
      "| where Name in ('provisioning.requests', 'provisioning.request.count')",
      "| where tostring(Properties['error.type']) == 'MEMBERSHIP_MISSMATCH'",
      "| extend q = tostring(Properties['provisioning.queue']), a = tostring(Properties['account.id'])",
    ].join('\n');
    expect(contractProblems(query, 'probe')).toEqual([
      'probe: no metric provisioning.request.count in the contract',
      'probe: provisioning.queue is not a dimension of provisioning.requests',
      'probe: no dimension account.id in the contract',
      "probe: 'MEMBERSHIP_MISSMATCH' is no value of error.type, provisioning.queue, account.id",
    ]);
  });

  it('measure a column the query makes and split by columns it makes', () => {
    for (const [key, rule] of Object.entries(alertRules())) {
      const { query, metricMeasureColumn, dimensions } = condition(rule);
      for (const column of [metricMeasureColumn, ...dimensions.map((d) => d.name)]) {
        expect(query, `${key}: ${column}`).toMatch(new RegExp(`\\b${column} = `));
      }
      expect(dimensions.every((d) => d.operator === 'Include' && d.values[0] === '*')).toBe(true);
    }
  });

  it('fire on the thresholds of the parameters, sustained throttling over three windows', () => {
    const rules = alertRules();
    expect(condition(rules['failure-rate']!)).toMatchObject({
      metricMeasureColumn: 'failurePercent',
      operator: 'GreaterThan',
      threshold: defaultOf('alertFailurePercent'),
    });
    expect(condition(rules['failure-rate']!).query).toContain(
      `| where requests >= ${String(defaultOf('alertFailureMinimumRequests'))}`,
    );
    expect(condition(rules['secret-expiry']!)).toMatchObject({
      timeAggregation: 'Minimum',
      operator: 'LessThan',
      threshold: defaultOf('alertSecretExpiryDays'),
    });
    expect(defaultOf('alertSecretExpiryDays')).toBe(14);
    expect(condition(rules['sustained-throttling']!)).toMatchObject({
      operator: 'GreaterThan',
      threshold: defaultOf('alertThrottleWaitSeconds'),
      failingPeriods: { numberOfEvaluationPeriods: 3, minFailingPeriodsToAlert: 3 },
    });
    for (const key of ['quarantine', 'membership-mismatch', 'poison-messages']) {
      expect(condition(rules[key]!), key).toMatchObject({
        timeAggregation: 'Total',
        operator: 'GreaterThan',
        threshold: 0,
      });
    }
  });

  it("are what the README's alerts table lists, on the same metrics and parameters", () => {
    const rules = alertRules();
    const rows = tableUnder(readFileSync(join(repoRoot, 'README.md'), 'utf8'), '### Alerts');
    const listed = rows.map(([key = '', , metric = '', parameters = '']) => ({
      key: codeSpans(key)[0],
      metric: codeSpans(metric)[0],
      parameters: [...parameters.matchAll(/`(\w+)` \((\d+)\)/g)].map(([, name, value]) => [
        name,
        Number(value),
      ]),
    }));
    expect(listed.map((row) => row.key).sort()).toEqual(Object.keys(rules).sort());
    for (const row of listed) {
      expect(metricQueryReferences(condition(rules[row.key!]!).query).metrics, row.key).toEqual([
        row.metric,
      ]);
      for (const [name, value] of row.parameters) {
        expect(defaultOf(String(name)), `${row.key}: ${name}`).toBe(value);
      }
    }
  });

  it('run over the workspace the app sends to and e-mail the address azd was given', () => {
    const { snapshot, parameters } = template();
    const workspace = onlyResource(snapshot, 'Microsoft.OperationalInsights/workspaces');
    const component = onlyResource(snapshot, 'Microsoft.Insights/components');
    expect(component.properties).toMatchObject({ WorkspaceResourceId: workspace.id });
    const actionGroup = onlyResource(snapshot, 'Microsoft.Insights/actionGroups');
    for (const rule of Object.values(alertRules())) {
      expect(rule.scopes).toEqual([workspace.id]);
      expect(rule.actions.actionGroups).toEqual([actionGroup.id]);
    }
    expect(actionGroup.properties).toMatchObject({
      enabled: true,
      emailReceivers: [{ emailAddress: parameters.parameters.alertEmailAddress?.value }],
    });
    expect(parameters.parameters.alertEmailAddress?.value).toMatch(/^[^@\s]+@[^@\s]+$/);
  });
});

describe('the query reader', () => {
  it('tells metrics, dimensions and compared values apart', () => {
    expect(
      metricQueryReferences(
        "AppMetrics | where Name == 'provisioning.requests' | where tostring(Properties['provisioning.outcome']) == 'failed' | extend s = strcat(a, ' / ', b)",
      ),
    ).toEqual({
      metrics: ['provisioning.requests'],
      dimensions: ['provisioning.outcome'],
      values: ['failed'],
    });
  });
});
