import type { Connector } from '../connectors/connector';
import type { ConnectorRegistry } from '../connectors/connector-registry';
import { unmappedAttributes } from '../domain/attribute-acceptance';
import type { InvalidRequest, UnmappedAttributes } from './invalid-request';
import {
  describeProblems,
  provisioningRequestSchema,
  type ProvisioningRequestBody,
} from './request-schema';

/** A request's body checked against the schema and against its connector. */
export type RequestCheck =
  | InvalidRequest
  | { kind: 'unknown connector'; connector: string }
  | { kind: 'valid'; request: ProvisioningRequestBody; connector: Connector };

/**
 * Checks a provisioning request before anything is stored or started (`POST /requests`, its
 * preview and the bulk queue alike): every problem of the body, then its connector, then the
 * attributes that connector's Mapping does not name (it would drop them without a word). A
 * body with other problems too names its unmapped attributes among them: every problem at once.
 *
 * @example
 * checkRequest({ connector: 'hr', account: { accountId: 'ada', attributes: { department: 'HR' } }, actions: [{ type: 'create' }] }, registry);
 * // { kind: 'invalid', problems: [...], unmapped: { connector: 'hr', attributes: ['department'], ... } }
 */
export function checkRequest(body: unknown, registry: ConnectorRegistry): RequestCheck {
  const parsed = provisioningRequestSchema.safeParse(body);
  if (!parsed.success) {
    const problems = describeProblems(parsed.error);
    const named = new Set(problems.map((p) => p.path));
    const unmapped = unmappedIn(body, registry)?.problems.filter((p) => !named.has(p.path));
    return { kind: 'invalid', problems: [...problems, ...(unmapped ?? [])] };
  }
  const request = parsed.data;
  const connector = registry.get(request.connector);
  if (connector === undefined) return { kind: 'unknown connector', connector: request.connector };
  const unmapped = unmappedIn(request, registry);
  if (unmapped !== undefined) return { kind: 'invalid', problems: unmapped.problems, unmapped };
  return { kind: 'valid', request, connector };
}

/** The attributes of a body (valid or not) its known connector does not write, or undefined. */
function unmappedIn(body: unknown, registry: ConnectorRegistry): UnmappedAttributes | undefined {
  const { connector, account } = (body ?? {}) as { connector?: unknown; account?: unknown };
  const attributes = (account as { attributes?: unknown } | undefined)?.attributes;
  if (typeof connector !== 'string' || typeof attributes !== 'object' || attributes === null) {
    return undefined;
  }
  const mapped = registry.mappedAttributes(connector);
  if (mapped === undefined || Array.isArray(attributes)) return undefined;
  const refused = unmappedAttributes(Object.keys(attributes), connector, mapped);
  if (refused.length === 0) return undefined;
  return {
    connector,
    attributes: refused.map((r) => r.attribute),
    problems: refused.map((r) => ({
      path: `account.attributes.${r.attribute}`,
      message: r.message,
    })),
  };
}
