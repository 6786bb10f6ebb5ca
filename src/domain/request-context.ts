/**
 * Who asked for a request, why, and under which case of the governance workflow (its
 * ticket or approval id): the audit trail an auditor follows. Carried as the caller gave
 * it into the request's report and every journal entry; it never holds, and never goes
 * into, a secret.
 */
export interface RequestContext {
  /** The person or workflow that asked, as the caller names them. */
  requestedBy?: string;
  /** Why, in the caller's words. */
  reason?: string;
  /** The governance workflow's own id for the case (ticket, approval): filterable in the journal. */
  correlationId?: string;
}

export const REQUEST_CONTEXT_FIELDS = ['requestedBy', 'reason', 'correlationId'] as const;

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
