import { ProvisioningError } from '../../../src/domain/errors';
import {
  graphConnectorSchema,
  type GraphConnectorSettings,
} from '../../../src/connectors/graph/graph-settings';
import { createGraphConnector, type GraphConnector } from '../../../src/connectors/graph';
import type { Connector } from '../../../src/connectors/connector';
import type { TargetAccount } from '../../../src/domain/account';
import type { MembershipAction } from '../../../src/domain/membership-plan';
import type { StepOutcome } from '../../../src/domain/step-outcome';
import { runMembership as runProcedure } from '../../support/membership-procedure';
import { LocalSecretStore } from '../../../src/secrets';
import { DEFAULT_SANDBOX_CLIENT, startGraphSandbox } from '../../../src/sandbox/graph';
import type {
  GraphSandbox,
  GraphSandboxClient,
  GraphSandboxOptions,
} from '../../../src/sandbox/graph';

export const SECRET_NAME = 'graph-client-secret';
export const ADMIN = DEFAULT_SANDBOX_CLIENT;

/**
 * Time shared by the sandbox (replication delay, throttling windows), the connector
 * (retries, read-backs) and the membership loop: a sleep moves it on at once, so a 30 s
 * window passes without waiting.
 */
export class VirtualClock {
  private current = Date.parse('2026-01-05T09:00:00Z');
  readonly sleeps: number[] = [];

  now = (): number => this.current;

  sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.current += ms;
    await new Promise((resolve) => setImmediate(resolve));
  };
}

export interface Harness {
  sandbox: GraphSandbox;
  clock: VirtualClock;
  settings(
    overrides?: Partial<GraphConnectorSettings> & { client?: GraphSandboxClient },
  ): GraphConnectorSettings;
  /** A connector on the sandbox, closed by `close()`. */
  connector(
    overrides?: Partial<GraphConnectorSettings> & { client?: GraphSandboxClient },
  ): GraphConnector;
  close(): Promise<void>;
}

/** A sandbox on the virtual clock, and connectors trusting its certificate through real MSAL. */
export async function startHarness(options: GraphSandboxOptions = {}): Promise<Harness> {
  const clock = new VirtualClock();
  const sandbox = await startGraphSandbox({ now: clock.now, ...options });
  const connectors: GraphConnector[] = [];
  const settings: Harness['settings'] = (overrides = {}) => {
    const { client = ADMIN, ...rest } = overrides;
    return {
      ...graphConnectorSchema.parse({
        name: 'entra-test',
        kind: 'graph',
        tenantId: sandbox.tenantId,
        clientId: client.clientId,
        clientSecretName: SECRET_NAME,
        upnDomain: 'contoso.example',
        authority: sandbox.authority,
        graphEndpoint: sandbox.graphEndpoint,
        concurrency: 4,
        timeoutMs: 5_000,
        maxRetries: 4,
      }),
      ...rest,
    };
  };
  return {
    sandbox,
    clock,
    settings,
    connector(overrides = {}) {
      const secret = overrides.client?.secret ?? ADMIN.secret;
      const connector = createGraphConnector(settings(overrides), {
        secrets: new LocalSecretStore({ [SECRET_NAME]: secret }),
        ca: sandbox.ca,
        sleep: clock.sleep,
        now: clock.now,
      });
      connectors.push(connector);
      return connector;
    },
    async close() {
      await Promise.all(connectors.map((connector) => connector.close()));
      await sandbox.close();
    },
  };
}

/** The Graph requests the sandbox saw, as "METHOD path" (batch sub-requests marked). */
export function requestLines(sandbox: GraphSandbox): string[] {
  return sandbox.requests.map(
    (request) => `${request.method} ${request.path}${request.viaBatch === true ? ' (batch)' : ''}`,
  );
}

/** The error a call fails with; a call that succeeds fails the test. */
export async function failureOf(call: Promise<unknown>): Promise<ProvisioningError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ProvisioningError) return error;
    throw error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

/** The service's membership procedure on a connector, on the harness's virtual clock. */
export function runMembership(
  harness: Harness,
  connector: Connector,
  account: TargetAccount,
  action: MembershipAction,
  groupIds: readonly string[],
): Promise<StepOutcome> {
  return runProcedure(connector, account, action, groupIds, harness.clock);
}
