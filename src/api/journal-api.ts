import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { connectorName } from '../config/connector-settings';
import type { ApiDeps } from './api-deps';
import { csvAnswer, readAllPages, wantsCsv } from './csv';
import { problem } from './http-problem';
import { journalCsv } from './journal-csv';
import { describeProblems, requestIdSchema } from './request-schema';

/** The CSV answer's horizon of a query by record time (the JSON answer's `recordedTo`). */
export const JOURNAL_RECORDED_TO_HEADER = 'x-journal-recorded-to';

const journalQuery = z.strictObject({
  connector: connectorName.optional(),
  accountId: z.string().min(1).max(256).optional(),
  requestId: requestIdSchema.optional(),
  correlationId: z.string().min(1).max(256).optional(),
  requestedBy: z.string().min(1).max(256).optional(),
  from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).optional(),
  recordedFrom: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).optional(),
  recordedTo: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  continuationToken: z.string().min(1).max(4096).optional(),
});

/**
 * `GET /api/journal`: effective changes, filtered by connector, account, request, the
 * governance workflow's case (`correlationId`), who asked (`requestedBy`) and time, paged.
 * With `Accept: text/csv`, every entry the filter matches as CSV (`limit` and
 * `continuationToken` do not apply), as the drift report answers. `recordedFrom`/`recordedTo`
 * page by the time each entry was written (see JournalQuery): what a client that exports
 * the journal as it grows pages by.
 */
export function journalHandler(deps: ApiDeps) {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const parsed = journalQuery.safeParse(Object.fromEntries(request.query.entries()));
    if (!parsed.success) {
      return problem(400, 'REQUEST_INVALID', 'invalid journal query', {
        problems: describeProblems(parsed.error),
      });
    }
    const { from, to, recordedFrom, recordedTo, ...rest } = parsed.data;
    const services = await deps.services();
    const query = {
      ...rest,
      ...(from === undefined ? {} : { from: new Date(from).toISOString() }),
      ...(to === undefined ? {} : { to: new Date(to).toISOString() }),
      ...(recordedFrom === undefined ? {} : { recordedFrom: new Date(recordedFrom).toISOString() }),
      ...(recordedTo === undefined ? {} : { recordedTo: new Date(recordedTo).toISOString() }),
    };
    if (!wantsCsv(request)) return { status: 200, jsonBody: await services.journal.query(query) };
    // Every page of the download under one horizon, which a header names.
    const recorded = services.journal.recordedToOf(query);
    const { items, complete } = await readAllPages(
      { ...query, ...(recorded === undefined ? {} : { recordedTo: recorded }) },
      1000,
      (page) => services.journal.query(page),
      (page) => page.entries,
    );
    const day = new Date().toISOString().slice(0, 10);
    const answer = csvAnswer(`journal-${rest.connector ?? 'all'}-${day}.csv`, journalCsv(items), {
      count: items.length,
      complete,
    });
    if (recorded === undefined) return answer;
    return { ...answer, headers: { ...answer.headers, [JOURNAL_RECORDED_TO_HEADER]: recorded } };
  };
}
