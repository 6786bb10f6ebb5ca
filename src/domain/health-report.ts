import type { CredentialState } from './credential-expiry';
import type { ErrorCode } from './errors';

/** How a part the service depends on answered just now. */
export interface PartHealth {
  status: 'ok' | 'failing' | 'not checked';
  detail: string;
  /** The code it failed with. */
  error?: ErrorCode;
}

/** What the service last saw of one connector. Nothing here is a secret. */
export interface ConnectorHealth {
  name: string;
  kind: string;
  /** It keeps a credential that expires (Graph: the client secret), known or not. */
  expiringCredential: boolean;
  /** The credential's expiry, where it is known (the secret store or the settings say). */
  credential?: CredentialState;
  /** The last status check (POST /connectors/{name}/status); absent: none yet. */
  lastStatusCheck?: {
    at: string;
    ok: boolean;
    summary: string;
    error?: { code: ErrorCode; message: string };
  };
  /** The last catalogue import; absent: none yet. */
  lastImport?: {
    at: string;
    jobId?: string;
    ok: boolean;
    mode?: string;
    groups?: number;
    error?: { code: ErrorCode; message: string };
  };
}

/** GET /api/health: storage, the secret store and each connector's last known state. */
export interface HealthReport {
  status: 'ok' | 'degraded' | 'failing';
  /** Why the status is not `ok`, one line per reason. */
  reasons: string[];
  checkedAt: string;
  storage: PartHealth;
  secretStore: PartHealth;
  connectors: ConnectorHealth[];
}

/**
 * The overall status and its reasons: `failing` while the service's storage fails (nothing
 * can be accepted or kept); `degraded` while the secret store fails, a connector's last
 * status check or import failed, or a credential expired; else `ok`. A connector never
 * checked is no reason: nothing was seen.
 *
 * @example
 * healthStatus({ storage: { status: 'ok', detail: '' }, secretStore: { status: 'ok', detail: '' }, connectors: [] });
 * // { status: 'ok', reasons: [] }
 */
export function healthStatus(
  parts: Pick<HealthReport, 'storage' | 'secretStore' | 'connectors'>,
): Pick<HealthReport, 'status' | 'reasons'> {
  const reasons: string[] = [];
  if (parts.storage.status === 'failing') reasons.push(`storage: ${parts.storage.detail}`);
  if (parts.secretStore.status === 'failing')
    reasons.push(`secret store: ${parts.secretStore.detail}`);
  for (const connector of parts.connectors) {
    if (connector.credential?.expired === true)
      reasons.push(`connector ${connector.name}: its credential expired`);
    if (connector.lastStatusCheck?.ok === false)
      reasons.push(`connector ${connector.name}: the last status check failed`);
    if (connector.lastImport?.ok === false)
      reasons.push(`connector ${connector.name}: the last import failed`);
  }
  const status =
    parts.storage.status === 'failing' ? 'failing' : reasons.length > 0 ? 'degraded' : 'ok';
  return { status, reasons };
}
