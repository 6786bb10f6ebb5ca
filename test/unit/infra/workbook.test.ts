import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  METRIC_CATALOGUE,
  METRIC_NAMES,
  type MetricDefinition,
  type MetricName,
} from '../../../src/domain/metric-catalogue';
import { onlyResource } from './arm-snapshot';
import { describeCompiled, repoRoot, template } from './compiled-template';
import { contractProblems, metricQueryReferences } from './metric-queries';
import { parameters, queryItems, workbookShape, type Workbook } from './workbook-shape';

const PLACEHOLDER = '__WORKSPACE_RESOURCE_ID__';
const source = readFileSync(join(repoRoot, 'infra/app/provisioning-workbook.json'), 'utf8');

/** The workbook as the deployment would store it. */
function deployedWorkbook(): { workbook: Workbook; properties: Record<string, unknown> } {
  const resource = onlyResource(template().snapshot, 'Microsoft.Insights/workbooks');
  const properties = resource.properties as Record<string, unknown>;
  return {
    workbook: workbookShape.parse(JSON.parse(String(properties.serializedData))),
    properties,
  };
}

/** Every query of a workbook: its panels and its query-based parameters, by name. */
function queries(workbook: Workbook): [string, string][] {
  return [
    ...queryItems(workbook).map((item): [string, string] => [item.name, item.content.query]),
    ...parameters(workbook).flatMap((p): [string, string][] =>
      p.query === undefined ? [] : [[`parameter ${p.name}`, p.query]],
    ),
  ];
}

describe('the workbook file', () => {
  it('parses and has the shape of a workbook', () => {
    const parsed = workbookShape.safeParse(JSON.parse(source));
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it('would refuse a panel without a query or of an unknown item type', () => {
    const workbook = JSON.parse(source) as { items: Record<string, unknown>[] };
    const broken = {
      ...workbook,
      items: [...workbook.items, { type: 3, name: 'empty', content: { version: 'KqlItem/1.0' } }],
    };
    expect(workbookShape.safeParse(broken).success).toBe(false);
    const unknown = { ...workbook, items: [{ type: 42, name: 'x', content: {} }] };
    expect(workbookShape.safeParse(unknown).success).toBe(false);
    expect(workbookShape.safeParse({ ...workbook, version: 'Notebook/2.0' }).success).toBe(false);
  });
});

describeCompiled('the workbook of the compiled template', () => {
  it('is the file, bound to the workspace that holds the metrics', () => {
    const { workbook, properties } = deployedWorkbook();
    const workspace = onlyResource(template().snapshot, 'Microsoft.OperationalInsights/workspaces');
    expect(properties).toMatchObject({ sourceId: workspace.id, category: 'workbook' });
    expect(workbook.fallbackResourceIds).toEqual([workspace.id]);
    expect(String(properties.serializedData)).toBe(source.replaceAll(PLACEHOLDER, workspace.id));
    expect(String(properties.serializedData)).not.toContain(PLACEHOLDER);
  });

  it('queries only metrics, dimensions and values of the metric contract', () => {
    const { workbook } = deployedWorkbook();
    const problems = queries(workbook).flatMap(([name, query]) => contractProblems(query, name));
    expect(problems).toEqual([]);
  });

  it('has a panel for every metric, filtered by the chosen connectors where it has one', () => {
    const { workbook } = deployedWorkbook();
    const shown = new Set<string>();
    for (const item of queryItems(workbook)) {
      const { metrics } = metricQueryReferences(item.content.query);
      expect(metrics, item.name).toHaveLength(1);
      const metric: MetricDefinition = METRIC_CATALOGUE[metrics[0] as MetricName];
      if (metric.dimensions.includes('provisioning.connector')) {
        expect(item.content.query, item.name).toContain('| where connector in ({Connector})');
      }
      shown.add(metrics[0]!);
    }
    expect(METRIC_NAMES.filter((name) => !shown.has(name))).toEqual([]);
  });

  it('uses only parameters it defines, the time range for every panel', () => {
    const { workbook } = deployedWorkbook();
    const defined = parameters(workbook);
    const names = defined.map((p) => p.name);
    expect(defined.find((p) => p.name === 'TimeRange')?.type).toBe(4);
    for (const [name, query] of queries(workbook)) {
      for (const [, used] of query.matchAll(/\{(\w+)(?::\w+)?\}/g)) {
        expect(names, `${name} uses {${used}}`).toContain(used);
      }
    }
    for (const item of queryItems(workbook)) {
      expect(item.content.timeContextFromParameter, item.name).toBe('TimeRange');
    }
  });
});
