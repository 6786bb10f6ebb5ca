import { contentTypeOf, unhealthyAnswer, type HealthProbe } from '../../domain/health-probe';
import type { HttpResult } from '../http/transport';
import type { GraphContext } from './graph-context';
import { readGraphError } from './graph-error-mapper';

/** The probe's read: one user's id, which every app with User.Read.All may read. */
const PROBE_PATH = '/users?$top=1&$select=id';

/**
 * Whether an answer to the probe's read is Graph's own, healthy one: 200 with an OData
 * collection (`value`, an array). A 429, a 403, a gateway's page or any other answer shows
 * nothing of the directory's health.
 *
 * @example
 * judgeGraphProbe(result).healthy; // true for 200 { value: [] }
 */
export function judgeGraphProbe(result: HttpResult): HealthProbe {
  const code = readGraphError(result.body).code;
  const said = `${result.describe} answered ${result.status}${code === undefined ? '' : ` ${code}`}`;
  const body = result.body as { value?: unknown } | undefined;
  if (result.status === 200 && Array.isArray(body?.value)) {
    return { healthy: true, seen: `${said} with a Graph collection` };
  }
  if (result.status < 300 || (result.status === 404 && code === undefined)) {
    return unhealthyAnswer(
      404,
      `${said} (${contentTypeOf(result.headers)}, not Graph's answer to the read)`,
    );
  }
  return unhealthyAnswer(result.status, said);
}

/** The quarantine probe of a Graph connector (a token is taken first: its failure throws). */
export async function probeGraphHealth(context: GraphContext): Promise<HealthProbe> {
  return judgeGraphProbe(await context.http.send({ method: 'GET', path: PROBE_PATH }));
}
