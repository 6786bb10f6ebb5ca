import { logs, SeverityNumber } from '@opentelemetry/api-logs';
import type { Logger, LogProperties } from '../domain/logger';
import { METER_NAME } from '../domain/metric-catalogue';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

const SEVERITY: Record<Level, SeverityNumber> = {
  debug: SeverityNumber.DEBUG,
  info: SeverityNumber.INFO,
  warn: SeverityNumber.WARN,
  error: SeverityNumber.ERROR,
};

/**
 * The logger in Azure when telemetry runs: log records through OpenTelemetry (Application
 * Insights `traces`), in the trace of the invocation that writes them, the properties as
 * attributes. In the Functions OpenTelemetry mode the host no longer exports the worker's
 * console, so this is how the service's lines reach the operator.
 */
export function telemetryLogger(minimum: Level = 'info'): Logger {
  const logger = logs.getLogger(METER_NAME);
  const from = LEVELS.indexOf(minimum);
  const emit = (level: Level, message: string, properties?: LogProperties) => {
    if (LEVELS.indexOf(level) < from) return;
    const attributes: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(properties ?? {})) {
      if (value !== undefined) attributes[key] = value;
    }
    logger.emit({
      severityNumber: SEVERITY[level],
      severityText: level.toUpperCase(),
      body: message,
      attributes,
    });
  };
  return {
    debug: (m, p) => emit('debug', m, p),
    info: (m, p) => emit('info', m, p),
    warn: (m, p) => emit('warn', m, p),
    error: (m, p) => emit('error', m, p),
  };
}
