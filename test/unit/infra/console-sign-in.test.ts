import { expect, it } from 'vitest';
import { appSettings, onlyResource, resourcesOfType } from './arm-snapshot';
import { describeCompiled, template } from './compiled-template';

interface AuthSettings {
  platform: unknown;
  globalValidation: unknown;
  httpSettings: unknown;
  identityProviders: {
    azureActiveDirectory: {
      enabled: boolean;
      registration: { clientId: string; openIdIssuer: string; clientSecretSettingName?: string };
      validation: { allowedAudiences: string[] };
    };
  };
}

const authSettings = (variant: 'default' | 'entra-sign-in') =>
  resourcesOfType(template(variant).snapshot, 'Microsoft.Web/sites/config').filter((r) =>
    r.name.endsWith('/authsettingsV2'),
  );

describeCompiled('App Service authentication for the console (ENABLE_ENTRA_AUTH)', () => {
  it('is off by default: function keys alone guard the API', () => {
    expect(authSettings('default')).toEqual([]);
  });

  it('signs people in with Entra ID and lets the API decide, without a client secret', () => {
    const [auth, ...more] = authSettings('entra-sign-in');
    expect(more).toEqual([]);
    const site = onlyResource(template('entra-sign-in').snapshot, 'Microsoft.Web/sites');
    expect(auth!.name).toBe(`${site.name}/authsettingsV2`);
    const properties = auth!.properties as unknown as AuthSettings;
    expect(properties.platform).toEqual({ enabled: true });
    // Anonymous requests go on: function keys guard /api/<route>, the console's files are
    // public, and /api/signed-in/ answers 401 with the sign-in link itself.
    expect(properties.globalValidation).toEqual({
      requireAuthentication: false,
      unauthenticatedClientAction: 'AllowAnonymous',
    });
    expect(properties.httpSettings).toEqual({ requireHttps: true });
    const aad = properties.identityProviders.azureActiveDirectory;
    expect(aad.enabled).toBe(true);
    expect(aad.registration.clientId).toBe('00000000-0000-4000-8000-00000000a9b1');
    // The cloud's own login endpoint (national clouds too) and this tenant's v2.0 issuer.
    expect(aad.registration.openIdIssuer).toBe(
      "[format('{0}{1}/v2.0', environment().authentication.loginEndpoint, '00000000-0000-4000-8000-000000000002')]",
    );
    expect(aad.registration.clientSecretSettingName).toBeUndefined();
    expect(aad.validation.allowedAudiences).toEqual([
      'api://00000000-0000-4000-8000-00000000a9b1',
      '00000000-0000-4000-8000-00000000a9b1',
    ]);
  });

  it('leaves WEBSITE_AUTH_ENABLED to the platform, which sets it when authentication is on', () => {
    expect(appSettings(template('entra-sign-in').snapshot)).not.toHaveProperty(
      'WEBSITE_AUTH_ENABLED',
    );
  });

  it('tells azd where the console is', () => {
    const site = onlyResource(template().snapshot, 'Microsoft.Web/sites');
    expect(template().snapshot.outputs.CONSOLE_URL).toBe(
      `[format('https://{0}/api/console/', reference('${site.id}', '${site.apiVersion}').defaultHostName)]`,
    );
  });
});
