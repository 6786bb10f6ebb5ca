import { describe, expect, it } from 'vitest';
import { loadConfig as loadWithKinds } from '../../../src/config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { ProvisioningError } from '../../../src/domain/errors';
import { expectNoSecrets } from '../../support/no-secrets';

const scim = {
  name: 'hr-app',
  kind: 'scim',
  baseUrl: 'https://hr.example/tenant/scim/v2/',
  auth: { type: 'bearer', tokenSecret: 'hr-app-token' },
};
const graph = {
  name: 'entra',
  kind: 'graph',
  tenantId: 'tenant-1',
  clientId: 'client-1',
  clientSecretName: 'entra-secret',
};

const loadConfig = (env: Record<string, string | undefined>) =>
  loadWithKinds(env, connectorSettingsKinds());

function configWith(connectors: unknown[], extra: Record<string, string> = {}) {
  return loadConfig({ PROVISIONING_CONNECTORS: JSON.stringify(connectors), ...extra });
}

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProvisioningError);
    expect((error as ProvisioningError).code).toBe('CONFIG_INVALID');
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig', () => {
  it('applies the defaults of both connector kinds', () => {
    const config = configWith([scim, graph]);
    expect(config.connectors[0]).toMatchObject({
      baseUrl: 'https://hr.example/tenant',
      memberValue: 'accountId',
      memberRemoveStyle: 'pathFilter',
      pageSize: 100,
      concurrency: 8,
      timeoutMs: 30_000,
    });
    expect(config.connectors[1]).toMatchObject({
      authority: 'https://login.microsoftonline.com',
      graphEndpoint: 'https://graph.microsoft.com',
      scopes: ['https://graph.microsoft.com/.default'],
    });
    expect(config.secretStore).toEqual({ provider: 'local', values: {} });
    expect(config.logLevel).toBe('info');
  });

  it('derives the default scope from a national-cloud Graph endpoint', () => {
    const config = configWith([
      {
        ...graph,
        authority: 'https://login.microsoftonline.us/',
        graphEndpoint: 'https://graph.microsoft.us/',
      },
    ]);
    expect(config.connectors[0]).toMatchObject({
      authority: 'https://login.microsoftonline.us',
      graphEndpoint: 'https://graph.microsoft.us',
      scopes: ['https://graph.microsoft.us/.default'],
    });
  });

  it('starts with no connector when none is configured', () => {
    expect(loadConfig({}).connectors).toEqual([]);
  });

  it('refuses credentials over plain http to a non-loopback host, naming connector and setting', () => {
    const message = problemsOf(() =>
      configWith([{ ...scim, baseUrl: 'http://hr.example/scim/v2' }]),
    );
    expect(message).toContain('connector "hr-app": setting "baseUrl"');
    expect(message).toContain('plain http');
  });

  it('allows plain http to loopback, and to any host without credentials', () => {
    const config = configWith([
      { ...scim, baseUrl: 'http://127.0.0.1:8080/scim/v2' },
      { ...scim, name: 'open', baseUrl: 'http://open.example', auth: { type: 'none' } },
    ]);
    expect(config.connectors.map((c) => c.name)).toEqual(['hr-app', 'open']);
  });

  it('reports every problem at once, by connector name or position', () => {
    const message = problemsOf(() =>
      configWith([{ ...scim, auth: { type: 'basic', username: 'svc' } }, { kind: 'graph' }], {
        LOG_LEVEL: 'loud',
      }),
    );
    expect(message).toContain('connector "hr-app": setting "auth.passwordSecret"');
    expect(message).toContain('connector #2: setting "name"');
    expect(message).toContain('connector #2: setting "tenantId"');
    expect(message).toContain('setting LOG_LEVEL');
  });

  it('refuses a SCIM Mapping onto an attribute the connector sets, naming connector and key', () => {
    const message = problemsOf(() =>
      configWith([
        {
          ...scim,
          mapping: {
            title: 'jobTitle',
            userName: 'upn',
            ACTIVE: 'enabled',
            'urn:ietf:params:scim:schemas:core:2.0:User:password': 'pw',
            'emails[type eq "work"].value': 'mail',
          },
        },
      ]),
    );
    for (const key of [
      'userName',
      'ACTIVE',
      'urn:ietf:params:scim:schemas:core:2.0:User:password',
      'emails[type eq "work"].value',
    ]) {
      expect(message).toContain(`connector "hr-app": setting "mapping.${key}": the connector sets`);
    }
    expect(message).toContain('userName is the account ID');
    expect(message).not.toContain('mapping.title');
  });

  it('refuses a Graph Mapping onto a property the connector sets, by the same rule', () => {
    const message = problemsOf(() =>
      configWith([{ ...graph, mapping: { department: 'dept', userPrincipalName: 'upn' } }]),
    );
    expect(message).toContain('connector "entra": setting "mapping.userPrincipalName"');
    expect(message).not.toContain('mapping.department');
  });

  it('refuses a Graph Mapping onto the names the connector writes from the request', () => {
    const message = problemsOf(() =>
      configWith([
        {
          ...graph,
          mapping: { displayName: 'fullName', GivenName: 'first', surname: 'last', mail: 'm' },
        },
      ]),
    );
    for (const key of ['displayName', 'GivenName', 'surname']) {
      expect(message).toContain(`connector "entra": setting "mapping.${key}": the connector sets`);
    }
    expect(message).toContain("come from the request's displayName, givenName and familyName");
    expect(message).not.toContain('mapping.mail');
  });

  it('accepts a Graph Mapping of further simple properties', () => {
    const config = configWith([
      { ...graph, mapping: { department: 'dept', jobTitle: 'title', mail: 'email' } },
    ]);
    expect(config.connectors[0]).toHaveProperty('mapping', {
      department: 'dept',
      jobTitle: 'title',
      mail: 'email',
    });
  });

  it('accepts a Mapping of further simple and extension attributes', () => {
    const config = configWith([
      {
        ...scim,
        mapping: {
          title: 'jobTitle',
          userType: 'kind',
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': 'id',
        },
      },
    ]);
    expect(config.connectors[0]).toHaveProperty('mapping.title', 'jobTitle');
  });

  it('refuses a secret value where a secret name belongs', () => {
    const message = problemsOf(() =>
      configWith([{ ...graph, clientSecretName: 'Zx8~q.9Kp_secret-value' }]),
    );
    expect(message).toContain('connector "entra": setting "clientSecretName"');
    expectNoSecrets(message, { 'client secret': 'Zx8~q.9Kp_secret-value' }, 'the message');
  });

  it('refuses a misspelt or unknown setting at any depth, naming its path and not its value', () => {
    // Each would be ignored and its default used without a word: no reconciliation ever
    // scheduled, member values in the wrong form, an expiry never warned of, and a secret
    // value written where none belongs kept in the app settings.
    const message = problemsOf(() =>
      configWith([
        {
          ...scim,
          reconcileSchedul: '0 0 2 * * *',
          memberVal: 'scimId',
          auth: { ...scim.auth, token: 'Zx8~q.9Kp_token-value' },
          advanced: { lastLogon: 'lastSeen' },
        },
        { ...graph, clientSecretExpireOn: '2027-01-01', quota: { write: 100 } },
      ]),
    );
    for (const path of ['reconcileSchedul', 'memberVal', 'auth.token', 'advanced.lastLogon']) {
      expect(message).toContain(`connector "hr-app": setting "${path}": not a setting`);
    }
    for (const path of ['clientSecretExpireOn', 'quota.write']) {
      expect(message).toContain(`connector "entra": setting "${path}": not a setting`);
    }
    expectNoSecrets(message, { token: 'Zx8~q.9Kp_token-value' }, 'the message');
  });

  it('keeps the keys of a Mapping and every known setting as written', () => {
    const config = configWith([
      {
        ...scim,
        mapping: { title: 'jobTitle' },
        advanced: { lastLogonAttribute: 'meta.lastLogin' },
        quarantine: { failureThreshold: 3 },
        reconcileSchedule: '0 0 2 * * *',
      },
      { ...graph, quota: { writes: 100 }, scopes: ['https://graph.microsoft.com/.default'] },
    ]);
    expect(config.connectors.map((c) => c.name)).toEqual(['hr-app', 'entra']);
  });

  it('refuses a base URL with credentials, a query or a fragment, without echoing it', () => {
    // Dropped by the paths the connector appends, they sent its calls to another endpoint
    // (another tenant) than the one written, and a password in it went nowhere it should.
    const message = problemsOf(() =>
      configWith([
        { ...scim, baseUrl: 'https://svc:Zx8~q.9Kp_password@hr.example/scim/v2' },
        { ...scim, name: 'tenant-b', baseUrl: 'https://hr.example/scim/v2?tenant=b' },
        { ...scim, name: 'fn', baseUrl: 'https://fn.example/api#scim' },
        { ...graph, graphEndpoint: 'https://graph.microsoft.com?x=1' },
        { ...graph, name: 'entra-2', authority: 'https://login.microsoftonline.com/?slice=x' },
      ]),
    );
    expect(message).toContain('connector "hr-app": setting "baseUrl": must not hold a user name');
    expect(message).toContain('connector "tenant-b": setting "baseUrl": must not hold a query');
    expect(message).toContain('connector "fn": setting "baseUrl": must not hold a fragment');
    expect(message).toContain('connector "entra": setting "graphEndpoint": must not hold a query');
    expect(message).toContain('connector "entra-2": setting "authority": must not hold a query');
    expectNoSecrets(message, { password: 'Zx8~q.9Kp_password', tenant: 'tenant=b' }, 'the message');
  });

  it('refuses an unknown connector kind and a duplicate name', () => {
    const message = problemsOf(() => configWith([scim, { ...scim }, { name: 'x', kind: 'ldap' }]));
    expect(message).toContain('connector "hr-app": setting "name": the name is used by another');
    expect(message).toContain('connector "x": setting "kind"');
  });

  it('names the setting when the connector list is not JSON, without echoing it', () => {
    const message = problemsOf(() =>
      loadConfig({ PROVISIONING_CONNECTORS: '[{"token": "s3cr3t-value"', LOCAL_SECRETS: '{bad' }),
    );
    expect(message).toContain('setting PROVISIONING_CONNECTORS: is not valid JSON');
    expect(message).toContain('setting LOCAL_SECRETS: is not valid JSON');
    expect(message).not.toContain('s3cr3t-value');
  });

  it('keeps write intents 45 days by default, and refuses fewer days than a connector may hold a request plus a week', () => {
    expect(configWith([scim]).writeIntentRetentionDays).toBe(45);
    expect(configWith([scim], { WRITE_INTENT_RETENTION_DAYS: '8' }).writeIntentRetentionDays).toBe(
      8,
    );
    const held = { ...graph, quarantine: { maxHoldHours: 720 } };
    const message = problemsOf(() =>
      configWith([scim, held], { WRITE_INTENT_RETENTION_DAYS: '30' }),
    );
    expect(message).toContain(
      'setting WRITE_INTENT_RETENTION_DAYS: connector "entra": 30 days is shorter than the 720 h',
    );
    expect(message).toContain('at least 37');
    expect(message).not.toContain('"hr-app"');
    expect(problemsOf(() => configWith([scim], { WRITE_INTENT_RETENTION_DAYS: '0' }))).toContain(
      'setting WRITE_INTENT_RETENTION_DAYS: must be a whole number from 1 to 3650',
    );
  });

  it('requires an https vault URL for Key Vault', () => {
    const message = problemsOf(() => loadConfig({ SECRET_STORE: 'keyvault' }));
    expect(message).toContain('setting KEY_VAULT_URL');
    expect(
      loadConfig({ SECRET_STORE: 'keyvault', KEY_VAULT_URL: 'https://kv.vault.azure.net' })
        .secretStore,
    ).toEqual({ provider: 'keyvault', vaultUrl: 'https://kv.vault.azure.net' });
  });
});

describe('App Service Authentication', () => {
  it('is on only where the platform says so (WEBSITE_AUTH_ENABLED=True)', () => {
    expect(loadConfig({}).appServiceAuthentication).toBe(false);
    expect(loadConfig({ WEBSITE_AUTH_ENABLED: 'True' }).appServiceAuthentication).toBe(true);
    expect(loadConfig({ WEBSITE_AUTH_ENABLED: 'False' }).appServiceAuthentication).toBe(false);
  });
});
