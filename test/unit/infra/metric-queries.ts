import {
  METRIC_CATALOGUE,
  METRIC_DIMENSIONS,
  METRIC_NAMES,
  type DimensionValues,
  type MetricDefinition,
  type MetricDimension,
  type MetricName,
} from '../../../src/domain/metric-catalogue';

/**
 * What a KQL query over AppMetrics reads of the metric contract (src/domain/metric-catalogue.ts):
 * the metrics it names (`Name == '...'`, `Name in (...)`), the dimensions it reads
 * (`Properties['...']`) and the other word-like literals it compares with (dimension values).
 */
export interface MetricQueryReferences {
  metrics: string[];
  dimensions: string[];
  values: string[];
}

export function metricQueryReferences(query: string): MetricQueryReferences {
  const metrics = new Set<string>();
  const dimensions = new Set<string>();
  for (const [, list] of query.matchAll(/\bName\s+in\s*\(([^)]*)\)/g)) {
    for (const [, name] of list!.matchAll(/'([^']*)'/g)) metrics.add(name!);
  }
  for (const [, name] of query.matchAll(/\bName\s*==\s*'([^']*)'/g)) metrics.add(name!);
  for (const [, key] of query.matchAll(/Properties\[\s*'([^']*)'\s*\]/g)) dimensions.add(key!);
  const values = [...query.matchAll(/'([\w.]+)'/g)]
    .map(([, literal]) => literal!)
    .filter((literal) => !metrics.has(literal) && !dimensions.has(literal));
  return { metrics: [...metrics], dimensions: [...dimensions], values: [...new Set(values)] };
}

const definition = (name: MetricName): MetricDefinition => METRIC_CATALOGUE[name];
const isMetric = (name: string): name is MetricName => METRIC_NAMES.includes(name as MetricName);
const isDimension = (key: string): key is MetricDimension => key in METRIC_DIMENSIONS;

/**
 * Where a query departs from the contract: a metric that is not recorded, a dimension that does
 * not exist or that none of its metrics carries, a value outside a dimension's closed set.
 */
export function contractProblems(query: string, where: string): string[] {
  const { metrics, dimensions, values } = metricQueryReferences(query);
  const problems: string[] = [];
  for (const name of metrics) {
    if (!isMetric(name)) problems.push(`${where}: no metric ${name} in the contract`);
  }
  const known = metrics.filter(isMetric);
  for (const key of dimensions) {
    if (!isDimension(key)) problems.push(`${where}: no dimension ${key} in the contract`);
    else if (known.length > 0 && !known.some((m) => definition(m).dimensions.includes(key))) {
      problems.push(`${where}: ${key} is not a dimension of ${known.join(', ')}`);
    }
  }
  const allowed = new Set<string>(
    dimensions.filter(isDimension).flatMap((key): readonly string[] => {
      const domain: DimensionValues = METRIC_DIMENSIONS[key].values;
      return typeof domain === 'string' ? [] : domain;
    }),
  );
  for (const value of values) {
    if (!allowed.has(value)) {
      problems.push(
        `${where}: '${value}' is no value of ${dimensions.join(', ') || 'any dimension'}`,
      );
    }
  }
  return problems;
}
