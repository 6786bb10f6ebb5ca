import type { Logger, LogProperties } from '../domain/logger';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/**
 * A logger on the console: in Azure the Functions worker forwards it to Application
 * Insights; on the local host it is the terminal. Lines carry their properties as JSON.
 */
export function consoleLogger(minimum: Level = 'info'): Logger {
  const from = LEVELS.indexOf(minimum);
  const line = (level: Level, message: string, properties?: LogProperties) => {
    if (LEVELS.indexOf(level) < from) return;
    const text = properties === undefined ? message : `${message} ${JSON.stringify(properties)}`;
    const write = level === 'error' ? console.error : level === 'warn' ? console.warn : console.log;
    write(`[${level}] ${text}`);
  };
  return {
    debug: (m, p) => line('debug', m, p),
    info: (m, p) => line('info', m, p),
    warn: (m, p) => line('warn', m, p),
    error: (m, p) => line('error', m, p),
  };
}
