import type { ImportState, ReconciliationState, StatusCheckState } from './connector-state';
import type { CredentialState } from './credential-expiry';
import type { ErrorCode } from './errors';
import type { UserGroupsVerdict } from './user-groups-verdict';

/** How a part the service depends on answered just now. */
export interface PartHealth {
  status: 'ok' | 'failing' | 'not checked';
  detail: string;
  /** The code it failed with. */
  error?: ErrorCode;
}

/** A connector's quarantine as the health report shows it (GET /api/connectors/{name}/quarantine has it all). */
export interface QuarantineHealth {
  state: 'quarantined' | 'active';
  /** Quarantined since (while quarantined), or when the last quarantine began. */
  since?: string;
  /** The failure that quarantined it: code, and its message without secrets. */
  reason?: { code: ErrorCode; message: string };
  /** Requests held now. */
  heldRequests: number;
  /** While quarantined: when the probe checks the target next. */
  nextProbeAt?: string;
  /** How the last quarantine ended: when, by its probe or an operator, and which operator. */
  releasedAt?: string;
  releasedBy?: 'probe' | 'operator';
  releasedByName?: string;
}

/** What the service last saw of one connector. Nothing here is a secret. */
export interface ConnectorHealth {
  name: string;
  kind: string;
  /** It keeps a credential that expires (Graph: the client secret), known or not. */
  expiringCredential: boolean;
  /** The credential's expiry, where it is known (the secret store or the settings say). */
  credential?: CredentialState;
  /** Its quarantine; absent: never quarantined. */
  quarantine?: QuarantineHealth;
  /** The last status check (POST /connectors/{name}/status); absent: none yet. */
  lastStatusCheck?: StatusCheckState;
  /** The bulk pass of the last reconciliation; absent: none yet. */
  lastReconciliation?: ReconciliationState;
  /** The last catalogue import; absent: none yet. */
  lastImport?: ImportState;
  /**
   * SCIM: what is known of the server's user `groups` attribute (`cut`: its silence is never
   * taken for a non-membership, until a compatibility run finds it complete); absent: nothing.
   */
  userGroups?: UserGroupsVerdict;
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
 * can be accepted or kept); `degraded` while the secret store fails, a connector is
 * quarantined, its last status check, import or reconciliation failed, or a credential
 * expired; else `ok`. A connector never
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
    if (connector.quarantine?.state === 'quarantined')
      reasons.push(
        `connector ${connector.name}: quarantined since ${connector.quarantine.since ?? '?'} (${connector.quarantine.reason?.code ?? 'unknown'})`,
      );
    if (connector.credential?.expired === true)
      reasons.push(`connector ${connector.name}: its credential expired`);
    if (connector.lastStatusCheck?.ok === false)
      reasons.push(`connector ${connector.name}: the last status check failed`);
    if (connector.lastImport?.ok === false)
      reasons.push(`connector ${connector.name}: the last import failed`);
    if (connector.lastReconciliation?.ok === false)
      reasons.push(`connector ${connector.name}: the last reconciliation failed`);
  }
  const status =
    parts.storage.status === 'failing' ? 'failing' : reasons.length > 0 ? 'degraded' : 'ok';
  return { status, reasons };
}
