import type { CredentialState } from '../domain/credential-expiry';
import { isProvisioningError } from '../domain/errors';
import {
  healthStatus,
  type ConnectorHealth,
  type HealthReport,
  type PartHealth,
  type QuarantineHealth,
} from '../domain/health-report';
import type { ConnectorState } from '../store/connector-states';
import type { WorkflowServices } from '../workflows/workflow-services';
import type { ApiDeps } from './api-deps';
import type { ApiHandler } from './guard-handler';
import { quarantinesOf, type QuarantineView } from './quarantine-api';

/**
 * `GET /api/health`: storage, the secret store and each connector's last known state (its
 * quarantine, last status check, import and reconciliation, its credential's expiry), read now without
 * calling any target. Storage is read for the connectors' states and quarantines (one query
 * each, plus the held requests of a quarantined connector); the secret store is read for the
 * credentials' expiries (through its cache). Nothing in it is a secret. 200 whatever the
 * status: the answer is the report.
 */
export function healthHandler(deps: Pick<ApiDeps, 'services' | 'now'>): ApiHandler {
  return async () => {
    const services = await deps.services();
    const names = services.registry.names();
    const [stored, credentials] = await Promise.all([
      readStates(services, names),
      readCredentials(services, names),
    ]);
    const quarantines = stored.quarantines;
    const connectors: ConnectorHealth[] = names.map((name) => {
      const state = stored.states.get(name) ?? {};
      const credential = credentials.states.get(name);
      return {
        name,
        kind: services.registry.kindOf(name)?.kind ?? 'unknown',
        expiringCredential: services.registry.get(name)?.credentialState !== undefined,
        ...(credential === undefined ? {} : { credential }),
        ...quarantineOf(quarantines.get(name)),
        ...(state.lastStatusCheck === undefined ? {} : { lastStatusCheck: state.lastStatusCheck }),
        ...(state.lastImport === undefined ? {} : { lastImport: state.lastImport }),
        ...(state.lastReconciliation === undefined
          ? {}
          : { lastReconciliation: state.lastReconciliation }),
        ...(state.userGroups === undefined ? {} : { userGroups: state.userGroups }),
      };
    });
    const parts = { storage: stored.health, secretStore: credentials.health, connectors };
    const report: HealthReport = {
      ...healthStatus(parts),
      checkedAt: deps.now().toISOString(),
      ...parts,
    };
    return { status: 200, jsonBody: report };
  };
}

/**
 * `GET /api/health/live`, open to anyone: the process answers. It says nothing else (no
 * version, no connector, no state), so it can serve a load balancer's probe.
 */
export function livenessHandler(): ApiHandler {
  return async () => ({ status: 200, jsonBody: { status: 'alive' } });
}

async function readStates(
  services: WorkflowServices,
  names: string[],
): Promise<{
  health: PartHealth;
  states: Map<string, ConnectorState>;
  quarantines: Map<string, QuarantineView>;
}> {
  try {
    const [states, quarantines] = await Promise.all([
      services.connectorStates.read(names),
      quarantinesOf(services),
    ]);
    return {
      health: { status: 'ok', detail: 'the connector states and quarantines were read' },
      states,
      quarantines,
    };
  } catch (error) {
    return {
      health: failing('the connector states could not be read', error),
      states: new Map(),
      quarantines: new Map(),
    };
  }
}

/** The part of a quarantine the health report shows. */
function quarantineOf(view: QuarantineView | undefined): { quarantine?: QuarantineHealth } {
  if (view === undefined) return {};
  return {
    quarantine: {
      state: view.state,
      heldRequests: view.heldRequests,
      ...(view.since === undefined ? {} : { since: view.since }),
      ...(view.reason === undefined ? {} : { reason: view.reason }),
      ...(view.nextProbeAt === undefined ? {} : { nextProbeAt: view.nextProbeAt }),
      ...(view.releasedAt === undefined ? {} : { releasedAt: view.releasedAt }),
      ...(view.releasedBy === undefined ? {} : { releasedBy: view.releasedBy }),
      ...(view.releasedByName === undefined ? {} : { releasedByName: view.releasedByName }),
    },
  };
}

async function readCredentials(
  services: WorkflowServices,
  names: string[],
): Promise<{ health: PartHealth; states: Map<string, CredentialState> }> {
  const states = new Map<string, CredentialState>();
  let read = 0;
  for (const name of names) {
    const connector = services.registry.get(name);
    if (connector?.credentialState === undefined) continue;
    try {
      const state = await connector.credentialState();
      read++;
      if (state !== undefined) states.set(name, state);
    } catch (error) {
      return {
        health: failing(`the credential of connector ${name} could not be read`, error),
        states,
      };
    }
  }
  return {
    health:
      read === 0
        ? { status: 'not checked', detail: 'no connector keeps a credential that expires' }
        : { status: 'ok', detail: `the credentials of ${read} connector(s) were read` },
    states,
  };
}

function failing(what: string, error: unknown): PartHealth {
  return isProvisioningError(error)
    ? { status: 'failing', detail: `${what}: ${error.message}`, error: error.code }
    : { status: 'failing', detail: `${what}: unexpected failure` };
}
