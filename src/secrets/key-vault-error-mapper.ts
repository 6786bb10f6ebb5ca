import { ProvisioningError } from '../domain/errors';

/** What the store was doing when Key Vault or the credential failed. */
export interface KeyVaultCallContext {
  operation: 'get' | 'list' | 'set' | 'delete';
  /** The secret's name (never its value). */
  name: string;
  /** The vault's host, e.g. `contoso-prov.vault.azure.net`. */
  vaultHost: string;
}

const VERB: Record<KeyVaultCallContext['operation'], string> = {
  get: 'reading',
  list: 'listing',
  set: 'writing',
  delete: 'deleting',
};

/** @azure/identity's error names: the credential could not produce a token. */
const CREDENTIAL_ERRORS = new Set([
  'AuthenticationError',
  'AggregateAuthenticationError',
  'CredentialUnavailableError',
  'AuthenticationRequiredError',
]);

/** Only short identifier-like codes are copied from a response; never free text. */
const SAFE_CODE = /^[A-Za-z][A-Za-z0-9_.]{0,63}$/;

function safeCode(value: unknown): string | undefined {
  return typeof value === 'string' && SAFE_CODE.test(value) ? value : undefined;
}

function nameOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'name' in error
    ? String(error.name)
    : typeof error;
}

/** The fields of @azure/core-rest-pipeline's RestError that are safe to read. */
interface RestErrorFields {
  statusCode: number | undefined;
  code: string | undefined;
}

/** Recognised by name, as the SDK's own `isRestError` does (copies of the class differ). */
function restErrorFields(error: unknown): RestErrorFields | undefined {
  if (nameOf(error) !== 'RestError') return undefined;
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  return {
    statusCode: typeof statusCode === 'number' ? statusCode : undefined,
    code: typeof code === 'string' ? code : undefined,
  };
}

/** An OAuth error code such as `invalid_client` (RFC 6749 §5.2), for details only. */
const OAUTH_ERROR_PREFIX = /^([a-z_]{3,64}):/;

/**
 * The token endpoint's OAuth error: `errorResponse.error` of an AuthenticationError, or
 * the code MSAL-based credentials put first in their message (`invalid_client: ...`);
 * nothing else of that message is used, as it quotes the authority's free text.
 */
function oauthErrorOf(error: unknown): string | undefined {
  const fields = error as { errorResponse?: { error?: unknown }; message?: unknown };
  const fromResponse = safeCode(fields.errorResponse?.error);
  if (fromResponse !== undefined) return fromResponse;
  const message = typeof fields.message === 'string' ? fields.message : '';
  return OAUTH_ERROR_PREFIX.exec(message)?.[1];
}

/** Whether the failure is Key Vault's 404 (secret absent or already deleted). */
export function isKeyVaultNotFound(error: unknown): boolean {
  return restErrorFields(error)?.statusCode === 404;
}

/**
 * Turns a SecretClient or credential failure into a ProvisioningError. Messages and
 * details are built here from the status, the Key Vault error code and the context:
 * the SDK's RestError carries the request (a PUT's body is the secret value) and the
 * response text, so neither its message nor the error itself is passed on as `cause`.
 */
export function mapKeyVaultError(error: unknown, context: KeyVaultCallContext): ProvisioningError {
  const { name, vaultHost } = context;
  const what = `${VERB[context.operation]} secret "${name}"`;
  const rest = restErrorFields(error);
  if (rest !== undefined) {
    const status = rest.statusCode;
    const keyVaultCode = safeCode(rest.code);
    const details = {
      ...(status === undefined ? {} : { status }),
      ...(keyVaultCode === undefined ? {} : { keyVaultCode }),
    };
    const common = { object: name, details, ...(status === undefined ? {} : { status }) };
    if (status === undefined || rest.code === 'REQUEST_SEND_ERROR') {
      return new ProvisioningError(
        'TARGET_UNAVAILABLE',
        `Key Vault ${vaultHost} could not be reached while ${what}`,
        { ...common, retryable: true },
      );
    }
    if (status === 404) {
      return new ProvisioningError(
        'SECRET_NOT_FOUND',
        `secret "${name}" not found in Key Vault ${vaultHost}`,
        { object: name, status, details },
      );
    }
    if (status === 401 || status === 403) {
      const reason =
        status === 401
          ? 'refused the token of the service identity'
          : `denied the service identity the secrets ${context.operation} permission`;
      return new ProvisioningError(
        'TARGET_AUTH_FAILED',
        `Key Vault ${vaultHost} ${reason} (HTTP ${status}) while ${what}: the identity lacks access to this vault`,
        common,
      );
    }
    if (status === 409) {
      return new ProvisioningError(
        'REQUEST_CONFLICT',
        `secret "${name}" is deleted but recoverable in Key Vault ${vaultHost} (soft-delete): its name cannot be reused until it is recovered or purged`,
        common,
      );
    }
    if (status === 429) {
      return new ProvisioningError(
        'TARGET_THROTTLED',
        `Key Vault ${vaultHost} throttled the service (HTTP 429) while ${what}`,
        { ...common, retryable: true },
      );
    }
    if (status >= 500) {
      return new ProvisioningError(
        'TARGET_UNAVAILABLE',
        `Key Vault ${vaultHost} failed (HTTP ${status}) while ${what}`,
        { ...common, retryable: true },
      );
    }
    if (status === 400 || status === 413) {
      return new ProvisioningError(
        'REQUEST_INVALID',
        `Key Vault ${vaultHost} rejected ${what} (HTTP ${status}${keyVaultCode === undefined ? '' : ` ${keyVaultCode}`})`,
        common,
      );
    }
    return new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `Key Vault ${vaultHost} answered HTTP ${status} while ${what}`,
      common,
    );
  }
  const errorName = nameOf(error);
  if (CREDENTIAL_ERRORS.has(errorName)) {
    const oauthError = oauthErrorOf(error);
    return new ProvisioningError(
      'TARGET_AUTH_FAILED',
      `the service identity could not get a token for Key Vault ${vaultHost} while ${what} (${errorName}${oauthError === undefined ? '' : `: ${oauthError}`})`,
      {
        object: name,
        details: {
          credentialError: errorName,
          ...(oauthError === undefined ? {} : { oauthError }),
        },
      },
    );
  }
  if (errorName === 'AbortError') {
    return new ProvisioningError(
      'TARGET_TIMEOUT',
      `Key Vault ${vaultHost} did not answer in time while ${what}`,
      { object: name, retryable: true },
    );
  }
  return new ProvisioningError(
    'INTERNAL_ERROR',
    `unexpected ${errorName} while ${what} in Key Vault ${vaultHost}`,
    { object: name },
  );
}
