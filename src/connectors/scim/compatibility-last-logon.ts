import type { ScimConnectorSettings } from './scim-settings';
import { SCIM_LAST_LOGON_NAMES, readScimLastLogon } from '../../domain/last-logon';
import { interpretListResponse } from './list-response';
import type { ScimConnector } from './scim-connector';
import { scimUrl } from './scim-paths';

const SAMPLE_SIZE = 10;

/**
 * Compatibility point 6: a last-logon attribute under a known name (the configured one or
 * the spec's four). A new test account has never logged on, so the evidence is the
 * server's schema (`/Schemas`) and a sample of existing users.
 */
export async function findLastLogonEvidence(
  connector: ScimConnector,
  settings: ScimConnectorSettings,
): Promise<{ holds: boolean | undefined; note: string }> {
  const configured = settings.advanced.lastLogonAttribute;
  const names = [...(configured === undefined ? [] : [configured]), ...SCIM_LAST_LOGON_NAMES];

  const sample = await connector.http.probe(
    'GET',
    scimUrl(settings.baseUrl, 'Users', undefined, { count: SAMPLE_SIZE }),
  );
  if (sample.status === 200) {
    const page = interpretListResponse(sample.body, sample.describe);
    for (const user of page.resources) {
      const found = readScimLastLogon(user, configured);
      if (found !== undefined) {
        return { holds: true, note: `users carry a last logon under "${found.source}"` };
      }
    }
  }

  const schemas = await connector.http.probe('GET', scimUrl(settings.baseUrl, 'Schemas'));
  if (schemas.status !== 200) {
    return {
      holds: undefined,
      note: `no sampled user carries ${names.join(', ')} and ${schemas.describe} answered ${schemas.status}`,
    };
  }
  const declared = declaredAttributeNames(schemas.body);
  const known = names.find((name) => declared.has(name.toLowerCase()));
  return known === undefined
    ? {
        holds: false,
        note: `neither the server's schemas nor ${SAMPLE_SIZE} sampled users have ${names.join(', ')}`,
      }
    : { holds: true, note: `the server's schemas declare "${known}"` };
}

/** Every attribute name and dotted sub-attribute path the schemas declare, lowercased. */
function declaredAttributeNames(body: unknown): Set<string> {
  const names = new Set<string>();
  const schemas = Array.isArray(body) ? body : safeResources(body);
  const visit = (attributes: unknown, prefix: string) => {
    if (!Array.isArray(attributes)) return;
    for (const attribute of attributes as Array<Record<string, unknown>>) {
      if (typeof attribute?.name !== 'string') continue;
      const path = `${prefix}${attribute.name}`;
      names.add(path.toLowerCase());
      visit(attribute.subAttributes, `${path}.`);
    }
  };
  for (const schema of schemas) {
    const record = schema as Record<string, unknown>;
    visit(record.attributes, '');
    if (typeof record.id === 'string') visit(record.attributes, `${record.id}.`);
  }
  return names;
}

function safeResources(body: unknown): unknown[] {
  try {
    return interpretListResponse(body, 'Schemas').resources;
  } catch {
    return [];
  }
}
