import { isProvisioningError, type SerializedError } from '../domain/errors';
import { silentLogger, type Logger } from '../domain/logger';
import type { ServicesProvider, WorkflowServices } from './workflow-services';

/**
 * What an activity returns. Expected failures travel as data: error classes and codes do
 * not survive the trip back to the orchestrator (platform-notes.md).
 */
export type ActivityResult<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

/** Marks the JSON of a retryable failure inside the message Durable hands to the orchestrator. */
export const RETRYABLE_MARKER = 'PROVISIONING_ERROR:';

/**
 * Runs an activity body: non-retryable `ProvisioningError`s become data; retryable ones
 * are thrown so that Durable retries the activity, carrying the serialized error in the
 * message; anything else is a defect, logged and thrown as `INTERNAL_ERROR`.
 */
export async function runActivity<T>(
  name: string,
  services: ServicesProvider,
  body: (services: WorkflowServices) => Promise<T>,
): Promise<ActivityResult<T>> {
  let logger: Logger = silentLogger;
  try {
    const built = await services();
    logger = built.logger;
    return { ok: true, value: await body(built) };
  } catch (error) {
    const failure = failureOf(name, error, logger);
    if (!failure.retryable) return { ok: false, error: failure };
    // No `cause`: only the serialized error, whose message is redacted, may reach the history.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`${RETRYABLE_MARKER}${JSON.stringify(failure)}`);
  }
}

/**
 * A failure of activity `name` as data: a `ProvisioningError` as it serialises (a retryable
 * one logged as such); anything else a defect, logged, and `INTERNAL_ERROR` (retryable). For
 * an activity that must answer some failures itself rather than have Durable retry it.
 */
export function failureOf(name: string, error: unknown, logger: Logger): SerializedError {
  if (isProvisioningError(error)) {
    if (error.retryable) logger.warn(`activity ${name}: retryable failure ${error.code}`);
    return error.toJSON();
  }
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`activity ${name}: unexpected failure: ${message}`);
  return {
    code: 'INTERNAL_ERROR',
    message: `activity ${name} failed unexpectedly: ${message}`,
    retryable: true,
  };
}

/**
 * The error an orchestrator sees after Durable gave up retrying an activity: the
 * serialized error when the activity marked one, else the plain message.
 */
export function errorFromActivityFailure(error: unknown, activity: string): SerializedError {
  const message = error instanceof Error ? error.message : String(error);
  const start = message.indexOf(RETRYABLE_MARKER);
  if (start >= 0) {
    const json = leadingJsonObject(message.slice(start + RETRYABLE_MARKER.length));
    if (json !== undefined) {
      try {
        return JSON.parse(json) as SerializedError;
      } catch {
        // fall through: the message was cut or changed on the way
      }
    }
  }
  const cut = message.indexOf('$OutOfProcData$');
  return {
    code: 'INTERNAL_ERROR',
    message: `activity ${activity} failed: ${cut >= 0 ? message.slice(0, cut) : message}`,
    retryable: false,
  };
}

/**
 * The JSON object at the start of `text`, whatever the host appended after it (Durable adds
 * the failure details, or `$OutOfProcData$`, after the message).
 */
function leadingJsonObject(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return text.slice(0, i + 1);
  }
  return undefined;
}
