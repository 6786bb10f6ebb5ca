/** The secret permissions of a Key Vault access policy that the sandbox checks. */
export type SecretPermission = 'get' | 'list' | 'set' | 'delete';

/** An app registration known to the sandbox's token authority, with its vault access. */
export interface KeyVaultSandboxClient {
  clientId: string;
  secret: string;
  /** The app's secret permissions on the vault (default: get, set, delete). */
  permissions?: SecretPermission[];
}

/** Options of {@link startKeyVaultSandbox}; every field has a default. */
export interface KeyVaultSandboxOptions {
  /** Default: a fixed GUID (see `DEFAULT_KEY_VAULT_TENANT_ID`). */
  tenantId?: string;
  /** Default: one client (see `DEFAULT_KEY_VAULT_CLIENT`) with every permission. */
  clients?: KeyVaultSandboxClient[];
  /** Clock in ms for secret timestamps (default `Date.now`); token lifetimes use the real clock. */
  now?: () => number;
}

/** One vault request (token authority requests are not logged), in order of arrival. */
export interface KeyVaultRequestRecord {
  method: string;
  /** The path without the query string, e.g. `/secrets/db-password/`. */
  path: string;
  status: number;
  /** Whether the request carried an `Authorization` header. */
  authorized: boolean;
}

/** A failure the sandbox answers instead of serving the next vault requests. */
export interface KeyVaultFault {
  status: number;
  /** How many vault requests get the fault (default 1). */
  times?: number;
  /** Only requests of this HTTP method get it (e.g. `DELETE`); default: any. */
  method?: string;
}

/** Claims of a token minted directly by {@link KeyVaultSandbox.tokenFor}. */
export interface SandboxTokenRequest {
  /** Default: the first client's id. */
  clientId?: string;
  /** Default `https://vault.azure.net`; anything else is refused by the vault. */
  audience?: string;
  /** Default: the sandbox's tenant. */
  tenantId?: string;
}

/** A running Key Vault sandbox: token authority and Key Vault secrets subset on one HTTPS loopback port. */
export interface KeyVaultSandbox {
  readonly tenantId: string;
  /** `https://127.0.0.1:PORT`: the vault URL for `SecretClient`. */
  readonly vaultUrl: string;
  /** `https://127.0.0.1:PORT`: the authority host; the tenant's authority is `${authorityHost}/${tenantId}`. */
  readonly authorityHost: string;
  /** PEM certificate of the server: trust it (it is its own CA). */
  readonly ca: string;
  /** Vault requests in order, the unauthenticated challenge requests included. */
  readonly requests: readonly KeyVaultRequestRecord[];
  readonly stats: { tokenRequests: number };
  clearRequests(): void;
  /** Mints an access token with the sandbox's signing key, without a token request. */
  tokenFor(request?: SandboxTokenRequest): Promise<string>;
  /** Writes a new version directly (a rotation done by someone else); returns the version id. */
  setSecret(name: string, value: string, options?: { expiresOn?: Date }): string;
  /** The current value, or undefined when absent or deleted. */
  currentValue(name: string): string | undefined;
  /** Whether the name is in the deleted (recoverable) state. */
  isDeleted(name: string): boolean;
  /** Replaces a client's permissions; takes effect on the next request (as RBAC does). */
  setClientPermissions(clientId: string, permissions: SecretPermission[]): void;
  /** The next vault requests answer `status` with a Key Vault error body. */
  injectFault(fault: KeyVaultFault): void;
  close(): Promise<void>;
}
