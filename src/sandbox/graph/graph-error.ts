import { randomUUID } from 'node:crypto';

/** A Graph answer before it is written to a socket or into a `$batch` sub-response. */
export interface GraphReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A Graph error, thrown by handlers and turned into the error body of
 * graph-behaviour.md ("Errors and throttling") by {@link toGraphErrorReply}.
 */
export class GraphRequestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'GraphRequestError';
    this.status = status;
    this.code = code;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

/** `{ error: { code, message, innerError: { 'request-id', date } } }` with the error's status. */
export function toGraphErrorReply(error: GraphRequestError, nowMs: number): GraphReply {
  return {
    status: error.status,
    headers: { 'Content-Type': 'application/json', ...error.headers },
    body: {
      error: {
        code: error.code,
        message: error.message,
        ...error.extra,
        innerError: { date: new Date(nowMs).toISOString(), 'request-id': randomUUID() },
      },
    },
  };
}

/** 404 `Request_ResourceNotFound` for an id that names nothing. */
export function resourceNotFound(id: string): GraphRequestError {
  return new GraphRequestError(
    404,
    'Request_ResourceNotFound',
    `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
  );
}
