import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV, loadConfig } from '../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { SETTINGS } from '../../../src/config/settings-catalogue';
import { TELEMETRY_ENV } from '../../../src/config/telemetry-settings';

const root = join(__dirname, '..', '..', '..');
const example = JSON.parse(readFileSync(join(root, 'local.settings.example.json'), 'utf8')) as {
  Values: Record<string, string>;
};
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('settings catalogue', () => {
  it('names every setting the configuration reads', () => {
    const read = new Set<string>([...Object.values(ENV), ...Object.values(TELEMETRY_ENV)]);
    const listed = new Set(SETTINGS.map((setting) => setting.name));
    for (const name of read) expect(listed, name).toContain(name);
  });

  it.each(SETTINGS.map((setting) => setting.name))(
    'local.settings.example.json gives %s',
    (name) => {
      expect(typeof example.Values[name]).toBe('string');
    },
  );

  it.each(SETTINGS.map((setting) => setting.name))('the README documents %s', (name) => {
    expect(readme).toContain(`\`${name}\``);
  });

  it('the example values form a valid configuration with both connector kinds and schedules', () => {
    const config = loadConfig(example.Values, connectorSettingsKinds());
    expect(config.connectors.map((c) => [c.kind, c.importSchedule])).toEqual([
      ['scim', '0 0 2 * * *'],
      ['graph', '0 30 2 * * *'],
    ]);
    expect(config.secretStore.provider).toBe('keyvault');
  });

  it('refuses an import schedule that is not six-field NCRONTAB, naming the connector', () => {
    const connectors = JSON.parse(example.Values.PROVISIONING_CONNECTORS!) as Record<
      string,
      unknown
    >[];
    connectors[0]!.importSchedule = '0 2 * * *';
    expect(() =>
      loadConfig({ PROVISIONING_CONNECTORS: JSON.stringify(connectors) }, connectorSettingsKinds()),
    ).toThrow(/connector "hr-app": setting "importSchedule": must be a six-field NCRONTAB/);
  });
});
