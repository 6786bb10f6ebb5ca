import {
  scimConnectorSchema,
  type ScimConnectorSettings,
} from '../../src/connectors/scim/scim-settings';
import { ScimConnector } from '../../src/connectors/scim/scim-connector';
import { LocalSecretStore } from '../../src/secrets/local-secret-store';
import {
  startScimSandbox,
  type ScimSandbox,
  type ScimSandboxOptions,
} from '../../src/sandbox/scim';

export const TOKEN = 'sandbox-bearer-7d41e0a9c2';
export const BASIC_PASSWORD = 'basic-pass-90f1b3';

export interface ScimTarget {
  sandbox: ScimSandbox;
  settings: ScimConnectorSettings;
  secrets: LocalSecretStore;
  connector: ScimConnector;
  close(): Promise<void>;
}

/** A SCIM sandbox and a connector pointed at it, with bearer auth unless told otherwise. */
export async function startScimTarget(
  sandboxOptions: ScimSandboxOptions = {},
  settingsOverrides: Record<string, unknown> = {},
): Promise<ScimTarget> {
  const sandbox = await startScimSandbox({
    auth: { type: 'bearer', token: TOKEN },
    ...sandboxOptions,
  });
  const auth = sandboxOptions.auth ?? { type: 'bearer' };
  const settings = scimConnectorSchema.parse({
    name: 'scim-test',
    kind: 'scim',
    baseUrl: sandbox.baseUrl,
    auth:
      auth.type === 'bearer'
        ? { type: 'bearer', tokenSecret: 'scim-token' }
        : auth.type === 'basic'
          ? { type: 'basic', username: auth.username, passwordSecret: 'scim-password' }
          : { type: 'none' },
    timeoutMs: 5_000,
    ...settingsOverrides,
  });
  const secrets = new LocalSecretStore({
    'scim-token': auth.type === 'bearer' && 'token' in auth ? auth.token : TOKEN,
    'scim-password': BASIC_PASSWORD,
  });
  const connector = new ScimConnector(settings, { secrets });
  return {
    sandbox,
    settings,
    secrets,
    connector,
    close: async () => {
      await connector.close();
      await sandbox.close();
    },
  };
}
