import { ProvisioningError } from '../../domain/errors';
import type { GraphContext } from './graph-context';
import { mapGraphError, readGraphError, type GraphErrorContext } from './graph-error-mapper';
import type { GraphCall } from './graph-http';
import { isRecord, type GraphObject } from './graph-objects';
import { PagingGuard } from './paging-guard';

/**
 * Graph's answers for a delta link it no longer knows: 400 `syncStateNotFound` for identity
 * resources after seven days (graph-behaviour.md), 410 Gone or `resyncRequired` elsewhere.
 */
const EXPIRED_CODES = new Set(['syncStateNotFound', 'resyncRequired']);

/** One page of a delta round: its items, and on the last page the link of the next round. */
export interface DeltaRoundPage {
  value: GraphObject[];
  deltaLink?: string;
}

/**
 * Every page of a delta round (graph-behaviour.md: Batching and incremental reads): from
 * the first call, or from a saved delta link used verbatim, `@odata.nextLink` followed until
 * the page with the `@odata.deltaLink`. A link Graph no longer knows, or one saved for
 * another endpoint, is CATALOGUE_CURSOR_EXPIRED: the caller reads everything instead.
 */
export async function* deltaRoundPages(
  context: GraphContext,
  start: GraphCall,
  round: { collection: 'groups' | 'users'; job: string; errors: GraphErrorContext },
): AsyncGenerator<DeltaRoundPage> {
  const { collection, job, errors } = round;
  if (
    /^https?:\/\//i.test(start.path) &&
    !start.path.startsWith(`${context.http.root}/${collection}/delta?`)
  ) {
    // Settings changed since the link was saved: it must never carry the token elsewhere.
    throw deltaLinkExpired(context, job, `the saved delta link is not one of ${context.http.root}`);
  }
  const guard = new PagingGuard(errors, context.http.url(start.path, start.query));
  let next: GraphCall = start;
  for (;;) {
    const result = await context.http.send(next);
    const graphCode = readGraphError(result.body).code;
    if (result.status === 410 || (graphCode !== undefined && EXPIRED_CODES.has(graphCode))) {
      throw deltaLinkExpired(
        context,
        job,
        `Graph answered ${result.status} ${graphCode ?? ''}`.trim(),
      );
    }
    if (result.status !== 200) throw mapGraphError(result, errors);
    const page = readDeltaPage(result.body, result.describe, context);
    if (page.deltaLink !== undefined) {
      yield { value: page.value, deltaLink: page.deltaLink };
      return;
    }
    yield { value: page.value };
    guard.follow(page.value.length, page.nextLink);
    next = { method: 'GET', path: page.nextLink };
  }
}

type DeltaPage =
  | { value: GraphObject[]; deltaLink: string; nextLink?: undefined }
  | { value: GraphObject[]; deltaLink?: undefined; nextLink: string };

/** A delta page carries exactly one of `@odata.nextLink` and `@odata.deltaLink`. */
function readDeltaPage(body: unknown, describe: string, context: GraphContext): DeltaPage {
  const value =
    isRecord(body) && Array.isArray(body.value) ? body.value.filter(isRecord) : undefined;
  const deltaLink = isRecord(body) ? body['@odata.deltaLink'] : undefined;
  const nextLink = isRecord(body) ? body['@odata.nextLink'] : undefined;
  if (value !== undefined && typeof deltaLink === 'string' && deltaLink !== '') {
    return { value, deltaLink };
  }
  if (value !== undefined && typeof nextLink === 'string' && nextLink !== '') {
    return { value, nextLink };
  }
  throw new ProvisioningError(
    'TARGET_RESPONSE_INVALID',
    `connector "${context.settings.name}": ${describe} answered a delta page without "value" and a next or delta link`,
    { object: context.settings.name },
  );
}

/** CATALOGUE_CURSOR_EXPIRED: the delta link the last `job` (import, reconciliation) kept is no longer valid. */
export function deltaLinkExpired(
  context: GraphContext,
  job: string,
  why: string,
): ProvisioningError {
  return new ProvisioningError(
    'CATALOGUE_CURSOR_EXPIRED',
    `connector "${context.settings.name}": the delta link of the last ${job} is no longer valid (${why})`,
    { object: context.settings.name },
  );
}
