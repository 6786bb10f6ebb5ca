import { ProvisioningError } from '../../domain/errors';
import { oneLine, redactSecrets } from '../http/redact';

export interface MsalErrorContext {
  connector: string;
  /** `${authority}/${tenantId}`: where the token was asked for. */
  authority: string;
  /** The name of the client secret in the SecretStore (never its value). */
  secretName: string;
  /** Values to keep out of the message: the client secret. */
  secrets: readonly string[];
}

/** "The provided client secret keys for app ... are expired." */
const EXPIRED_SECRET_AADSTS = '7000222';

const HINTS: Record<string, string> = {
  invalid_client: 'the client secret or the client ID is wrong or expired',
  unauthorized_client: 'the app registration is not known in this tenant',
  invalid_request: 'the tenant ID or the request is not accepted by the authority',
  invalid_scope: 'the scope is not accepted: it must be "{graph_endpoint}/.default"',
};

/**
 * Turns an MSAL failure into `GRAPH_TOKEN_FAILED`, keyed on MSAL's `errorCode` (the OAuth
 * error, e.g. `invalid_client`) and showing the AADSTS number for the operator; an expired
 * client secret (AADSTS7000222) is `GRAPH_CLIENT_SECRET_EXPIRED`. The client secret is never
 * part of the message, whatever the authority echoed.
 *
 * @example
 * mapMsalError(err, { connector: 'entra', authority: 'https://login.microsoftonline.com/t1', secretName: 'entra-secret', secrets: [] });
 * // GRAPH_TOKEN_FAILED: connector "entra": no access token from https://login.microsoftonline.com/t1: invalid_client (AADSTS7000215) ...
 */
export function mapMsalError(error: unknown, context: MsalErrorContext): ProvisioningError {
  if (error instanceof ProvisioningError) return error;
  const fields = readFields(error);
  const oauthCode = fields.errorCode ?? 'unknown_error';
  const aadsts = fields.errorNo ?? /AADSTS(\d+)/.exec(fields.errorMessage ?? '')?.[1];
  const description = describe(fields.errorMessage, context.secrets);
  const hint = HINTS[oauthCode];
  const network = ['network_error', 'network_unavailable', 'endpoints_resolution_error'].includes(
    oauthCode,
  );
  const message =
    `connector "${context.connector}": no access token from ${context.authority}: ${oauthCode}` +
    `${aadsts === undefined ? '' : ` (AADSTS${aadsts})`}` +
    `${hint === undefined ? '' : `: ${hint}`}` +
    `${oauthCode === 'invalid_client' ? ` (client secret "${context.secretName}", value not shown)` : ''}` +
    `${description === '' ? '' : `. The authority said: ${description}`}`;
  // Entra ID names an expired client secret by its own number (AADSTS7000222) under invalid_client.
  const expired = oauthCode === 'invalid_client' && aadsts === EXPIRED_SECRET_AADSTS;
  return new ProvisioningError(
    expired ? 'GRAPH_CLIENT_SECRET_EXPIRED' : 'GRAPH_TOKEN_FAILED',
    message,
    {
      retryable: network || (fields.status !== undefined && fields.status >= 500),
      ...(fields.status === undefined ? {} : { status: fields.status }),
      object: context.connector,
      details: {
        oauthError: oauthCode,
        ...(aadsts === undefined ? {} : { aadsts: `AADSTS${aadsts}` }),
      },
    },
  );
}

interface MsalErrorFields {
  errorCode?: string;
  errorMessage?: string;
  errorNo?: string;
  status?: number;
}

function readFields(error: unknown): MsalErrorFields {
  if (typeof error !== 'object' || error === null) return {};
  const record = error as Record<string, unknown>;
  const text = (key: string) =>
    typeof record[key] === 'string' && record[key] !== '' ? record[key] : undefined;
  const errorNo = record.errorNo;
  return {
    errorCode: text('errorCode'),
    errorMessage: text('errorMessage') ?? (error instanceof Error ? error.message : undefined),
    errorNo:
      typeof errorNo === 'string' || typeof errorNo === 'number' ? String(errorNo) : undefined,
    status: typeof record.status === 'number' ? record.status : undefined,
  };
}

/** MSAL's text lists timestamp, trace and correlation ids; the description is what helps. */
function describe(errorMessage: string | undefined, secrets: readonly string[]): string {
  if (errorMessage === undefined) return '';
  const described =
    / - Description: (.*?)(?: - Correlation ID:|$)/s.exec(errorMessage)?.[1] ?? errorMessage;
  // Entra appends trace and correlation ids and a timestamp to each description: noise here.
  const description = described.split(/\s*Trace ID:/)[0] ?? described;
  return oneLine(redactSecrets(description, secrets), 240);
}
