import { processConfiguration } from './process-configuration';
import type { WorkflowServices } from '../workflows/workflow-services';
import { buildServices } from './build-services';
import { consoleLogger } from './console-logger';

let services: Promise<WorkflowServices> | undefined;

/** The process's services in Azure, built on first use from the validated configuration. */
export function processServices(): Promise<WorkflowServices> {
  services ??= Promise.resolve().then(() => {
    const config = processConfiguration();
    return buildServices({ config, logger: consoleLogger(config.logLevel) });
  });
  return services;
}
