/** Structured properties of a log line: request id, connector, account id. Never a secret or a payload. */
export type LogProperties = Record<string, string | number | boolean | undefined>;

/** The logging port: the invocation context in Azure, the console on the local host, a recorder in tests. */
export interface Logger {
  debug(message: string, properties?: LogProperties): void;
  info(message: string, properties?: LogProperties): void;
  warn(message: string, properties?: LogProperties): void;
  error(message: string, properties?: LogProperties): void;
}

/** A logger that drops everything: the default where the caller gave none. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
