import type { ConnectorSettings, ConnectorSettingsKinds } from '../config/connector-settings';
import { ProvisioningError } from '../domain/errors';
import type { ConnectorKindDescriptor } from './connector-kind';
import { GRAPH_KIND } from './graph/graph-kind';
import { SCIM_KIND } from './scim/scim-kind';

/** The connector kinds this service knows: one line each. */
const KINDS = new Map<string, ConnectorKindDescriptor>(
  [SCIM_KIND, GRAPH_KIND].map((descriptor) => [descriptor.kind, descriptor]),
);

/** The descriptor of a kind; CONFIG_INVALID naming the connector for an unknown one. */
export function connectorKind(
  settings: Pick<ConnectorSettings, 'kind' | 'name'>,
): ConnectorKindDescriptor {
  const descriptor = KINDS.get(settings.kind);
  if (descriptor === undefined) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `connector "${settings.name}": unknown kind "${settings.kind}"; known: ${[...KINDS.keys()].join(', ')}`,
      { object: settings.name },
    );
  }
  return descriptor;
}

/** The settings schema and cross-checks of every known kind: what `loadConfig` validates with. */
export function connectorSettingsKinds(): ConnectorSettingsKinds {
  return new Map(
    [...KINDS].map(([kind, descriptor]) => [
      kind,
      {
        schema: descriptor.settingsSchema,
        conflicts: (connectors: readonly ConnectorSettings[]) =>
          descriptor.settingsConflicts?.(connectors) ?? [],
      },
    ]),
  );
}

/**
 * Adds a kind (an extension, or a test's stand-in) through the same path the built-in
 * kinds take: its settings are validated by its own schema like theirs. Returns what
 * removes it again (a test puts the process back as it found it).
 */
export function registerConnectorKind<S extends ConnectorSettings>(
  descriptor: ConnectorKindDescriptor<S>,
): () => void {
  if (KINDS.has(descriptor.kind)) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `connector kind "${descriptor.kind}" is known already`,
    );
  }
  KINDS.set(descriptor.kind, descriptor);
  return () => KINDS.delete(descriptor.kind);
}
