import type { Logger } from '../../src/domain/logger';
import {
  startLocalHost,
  type LocalHost,
  type LocalHostOptions,
} from '../../src/runtime/local-host/local-host';
import { VirtualClock, type DriverClock } from '../../src/runtime/local-host/virtual-clock';
import { requestInstanceId } from '../../src/workflows/names';
import { until } from '../support/poll-until';

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * A local host on an ephemeral port with a virtual clock (or the clock a test gives), and
 * everything it said kept for inspection.
 */
export interface TestHost<C extends DriverClock = VirtualClock> {
  host: LocalHost;
  clock: C;
  logs: string[];
  /** Every API answer body, as text: scanned for secrets. */
  answers: string[];
  api(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; raw?: string },
  ): Promise<ApiAnswer>;
  /** Waits for the request's orchestration to end, then answers GET /api/requests/{id}. */
  finished(requestId: string): Promise<any>;
  /** Imports the connector's group catalogue through the API; the ended job (status and all). */
  importCatalogue(connector: string): Promise<any>;
  close(): Promise<void>;
}

export async function startTestHost<C extends DriverClock = VirtualClock>(
  env: Record<string, string> = {},
  options: Pick<
    LocalHostOptions,
    'consoleDirectory' | 'signedInCallers' | 'sandboxSettings' | 'storage'
  > & {
    clock?: C;
  } = {},
): Promise<TestHost<C>> {
  const clock =
    options.clock ?? (new VirtualClock(Date.parse('2026-11-22T08:00:00Z')) as unknown as C);
  const logs: string[] = [];
  const record =
    (level: string) =>
    (message: string, properties?: Record<string, unknown>): void => {
      logs.push(
        `${level} ${message} ${properties === undefined ? '' : JSON.stringify(properties)}`,
      );
    };
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
  const host = await startLocalHost({
    env: { LOG_LEVEL: 'debug', ...env },
    port: 0,
    clock,
    logger,
    queuePollMs: 25,
    queueVisibilitySeconds: 1,
    ...options,
  });
  const answers: string[] = [];
  const api: TestHost<C>['api'] = async (method, path, body, options = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const key = options.key === undefined ? host.apiKey : options.key;
    if (key !== null) headers['x-functions-key'] = key;
    const response = await fetch(`${host.url}${path}`, {
      method,
      headers,
      ...(options.raw !== undefined
        ? { body: options.raw }
        : body === undefined
          ? {}
          : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    host,
    clock,
    logs,
    answers,
    api,
    finished: async (requestId) => {
      await host.driver.waitFor(requestInstanceId(requestId), 60_000);
      return (await api('GET', `/api/requests/${requestId}`)).body;
    },
    importCatalogue: async (connector) => {
      const started = await api('POST', `/api/connectors/${connector}/imports`, {});
      if (started.status !== 202) {
        throw new Error(`import of ${connector} refused: ${started.status} ${started.text}`);
      }
      return until(`the import of ${connector} to end`, async () => {
        const answer = await api('GET', `/api/jobs/${started.body.jobId as string}`);
        return answer.body.status === 'running' ? undefined : answer.body;
      });
    },
    close: () => host.close(),
  };
}
