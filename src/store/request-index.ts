import type { ProvisioningRequest } from '../domain/provisioning-request';
import { requestContextOf, type RequestContext } from '../domain/request-context';
import type { RequestStatus } from '../domain/request-report';

/** One provisioning request as the request list shows it, with who asked and why. */
export interface RequestIndexEntry extends RequestContext {
  requestId: string;
  connector: string;
  accountId: string;
  /** The action types, in order. */
  actions: string[];
  /**
   * `pending` from submission until the orchestration writes its end (`succeeded` or
   * `failed`): a reader asks the orchestration for the live state of a pending entry.
   */
  status: RequestStatus;
  source: ProvisioningRequest['source'];
  receivedAt: string;
  finishedAt?: string;
}

export interface RequestIndexQuery {
  connector?: string;
  /**
   * The account, in any spelling its connector takes for it: requests whose account has the
   * same key (account-keys.ts), and requests indexed before rows carried the key under this
   * exact spelling.
   */
  accountId?: string;
  /** Entries whose stored status is one of these; all when absent. */
  statuses?: readonly RequestStatus[];
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** From a previous page's answer. */
  continuationToken?: string;
}

export interface RequestIndexPage {
  /** Newest first. */
  entries: RequestIndexEntry[];
  continuationToken?: string;
}

/**
 * The index behind the request list (DESIGN: src/store): Durable's instance query cannot
 * filter by connector or account, so each request is indexed when it is submitted and again
 * when its orchestration ends. Both writes are keyed by the request alone, so a retried
 * submission, a retried activity or a replay leaves one entry.
 */
export interface RequestIndexStore {
  /** At submission: adds the entry unless the request is indexed already (its end may be written first). */
  add(entry: RequestIndexEntry): Promise<void>;
  /**
   * As {@link add}, for requests submitted many at once (the bulk queue): the entry is
   * written with those of requests added at about the same time, in as few transactions as
   * the store allows, without waiting for them. A request whose rows exist, or whose rows
   * the store refuses, fails none of the others.
   */
  addTogether(entry: RequestIndexEntry): Promise<void>;
  /**
   * At the request's end: the entry with its final status. True when this call ended it;
   * false when it was ended before (a run of the same activity whose answer was lost), and
   * then nothing is written: a caller counts the request's end only on true (also when the
   * store's client sent this call's write again after losing its answer).
   */
  recordEnd(entry: RequestIndexEntry): Promise<boolean>;
  query(query: RequestIndexQuery): Promise<RequestIndexPage>;
}

/** The index entry of a request as its orchestration input describes it. */
export function indexEntryOf(
  request: Pick<
    ProvisioningRequest,
    'requestId' | 'connector' | 'account' | 'actions' | 'source' | 'receivedAt'
  > &
    RequestContext,
): RequestIndexEntry {
  return {
    ...requestContextOf(request),
    requestId: request.requestId,
    connector: request.connector,
    accountId: request.account.accountId,
    actions: request.actions.map((action) => action.type),
    status: 'pending',
    source: request.source,
    receivedAt: request.receivedAt,
  };
}
