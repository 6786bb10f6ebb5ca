import type { ConnectorSettings } from '../config/connector-settings';
import { explainFailure } from '../domain/compatibility-hint';
import type { RequestReport } from '../domain/request-report';
import type { WorkflowServices } from '../workflows/workflow-services';

/**
 * A connector setting's value by the name an operator writes (`memberValue`, `auth.type`):
 * a dotted path into the settings, whatever the connector's kind.
 *
 * @example
 * settingValue(settings, 'auth.type'); // 'bearer'
 */
export function settingValue(settings: ConnectorSettings, setting: string): string | undefined {
  let value: unknown = settings;
  for (const key of setting.split('.')) {
    value =
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

/**
 * A request's report with each failed step's error read against its connector's last
 * compatibility run (domain: explainFailure): "setPassword is not supported by this server:
 * compatibility run of <date>, point 5", before the target's own answer. Added where a
 * report is shown (API, CLI), so the step machines stay pure and nothing asks which kind
 * the connector is. A report without failed steps, or a store that cannot be read, is
 * shown as it is.
 */
export async function withCompatibilityHints(
  report: RequestReport,
  services: Pick<WorkflowServices, 'registry' | 'compatibility' | 'logger'>,
): Promise<RequestReport> {
  if (!report.steps.some((step) => step.state === 'failed' && step.error !== undefined)) {
    return report;
  }
  const settings = services.registry.settings(report.connector);
  if (settings === undefined) return report;
  let run;
  try {
    run = await services.compatibility.last(report.connector);
  } catch (error) {
    services.logger.warn(
      `the last compatibility run of connector ${report.connector} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      { connector: report.connector },
    );
    return report;
  }
  if (run === undefined) return report;
  return {
    ...report,
    steps: report.steps.map((step) =>
      step.state === 'failed' && step.error !== undefined
        ? {
            ...step,
            error: explainFailure(step.error, step.action, run, (setting) =>
              settingValue(settings, setting),
            ),
          }
        : step,
    ),
  };
}
