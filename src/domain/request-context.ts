/**
 * Who asked for a request, why, and under which case of the governance workflow (its
 * ticket or approval id): the audit trail an auditor follows. Carried as the caller gave
 * it into the request's report and every journal entry, beside who the service saw submit
 * it (`submittedBy`), which the caller cannot write; it never holds, and never goes into,
 * a secret.
 */
export interface RequestContext {
  /** The person or workflow that asked, as the caller names them. */
  requestedBy?: string;
  /** Why, in the caller's words. */
  reason?: string;
  /** The governance workflow's own id for the case (ticket, approval): filterable in the journal. */
  correlationId?: string;
  /**
   * Who the service saw submit the request: the signed-in principal's name, or the key
   * (`function key` in Azure, `local API key` on the local host). Absent where nobody was
   * authenticated (the bulk queue, the command line) and in requests recorded before it was.
   */
  submittedBy?: string;
}

export const REQUEST_CONTEXT_FIELDS = [
  'requestedBy',
  'reason',
  'correlationId',
  'submittedBy',
] as const;

/**
 * The context fields of anything that carries them, and nothing else: what is copied into a
 * report or journal entry is exactly the context, never a neighbouring field.
 *
 * @example
 * requestContextOf({ requestId: 'r1', correlationId: 'CHG-42' }); // { correlationId: 'CHG-42' }
 */
export function requestContextOf(source: RequestContext): RequestContext {
  const context: RequestContext = {};
  for (const field of REQUEST_CONTEXT_FIELDS) {
    const value = source[field];
    if (value !== undefined) context[field] = value;
  }
  return context;
}
