import { randomBytes } from 'node:crypto';
import { isProvisioningError } from '../../domain/errors';
import type { CompatibilitySession } from './compatibility-session';
import { attributeFilter } from './filter';
import { interpretListResponse } from './list-response';
import { scimUrl } from './scim-paths';

/** The attribute a filter compares, read from a resource (string values only). */
function textOf(resource: Record<string, unknown>, attribute: string): string | undefined {
  const value = resource[attribute];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The names of the resources in a filtered answer that the filter excludes: a server that
 * ignores a filter (or applies a looser one) answers them (scim-interop.md). A filter that
 * found what it was asked for proves nothing by itself: only an answer without strangers
 * shows the server evaluated it. `op` is `eq` or `co`, compared without case as servers do.
 *
 * @example
 * strangers({ Resources: [{ displayName: 'Sales' }] }, 'displayName', 'co', 'Fin'); // ['Sales']
 */
export function strangers(
  body: unknown,
  attribute: string,
  op: 'eq' | 'co',
  value: string,
): string[] {
  let resources: Record<string, unknown>[];
  try {
    resources = interpretListResponse(body, 'answer').resources;
  } catch {
    return [];
  }
  const wanted = value.toLowerCase();
  return resources.flatMap((resource) => {
    const text = textOf(resource, attribute)?.toLowerCase();
    const kept = text !== undefined && (op === 'eq' ? text === wanted : text.includes(wanted));
    return kept ? [] : [textOf(resource, attribute) ?? String(resource.id)];
  });
}

/** "3 resources (a, b, c)", at most three named. */
export function describeStrangers(names: readonly string[]): string {
  const shown = names.slice(0, 3).map((name) => `"${name}"`);
  const more = names.length > 3 ? `, and ${names.length - 3} more` : '';
  return `${names.length} that ${names.length === 1 ? 'does' : 'do'} not match (${shown.join(', ')}${more})`;
}

/**
 * Point 4's negative control: `attribute op "<a value no resource has>"` must answer no
 * resource (or 404). A server that answers resources anyway ignores the filter: the operator
 * does not fit, whatever a search for an existing resource found.
 */
export async function controlFilter(
  s: CompatibilitySession,
  resource: 'Users' | 'Groups',
  attribute: string,
  op: 'eq' | 'co',
): Promise<void> {
  const value = `compat-none-${randomBytes(4).toString('hex')}`;
  const what = resource === 'Users' ? 'users' : 'groups';
  const step = `search ${what} for a ${attribute} no ${what === 'users' ? 'user' : 'group'} has (${attribute} ${op} "${value}")`;
  let answer;
  try {
    answer = await s.probe(
      'GET',
      scimUrl(s.settings.baseUrl, resource, undefined, {
        filter: attributeFilter(attribute, op, value),
        ...(resource === 'Groups' ? { excludedAttributes: 'members' } : {}),
      }),
    );
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    s.note(step, 'failed', error.message);
    return;
  }
  const { result, evidence } = answer;
  const found = result.status === 200 ? strangers(result.body, attribute, op, value) : [];
  s.note(step, found.length === 0 ? 'succeeded' : 'failed', `answered ${result.status}`);
  if (found.length === 0) return;
  s.check(
    4,
    op,
    false,
    `${attribute} ${op} "${value}" answered ${describeStrangers(found)}: the server ignores the filter`,
    evidence,
  );
}

/** {@link controlFilter} of `displayName eq` on Groups. */
export function controlGroupEq(s: CompatibilitySession): Promise<void> {
  return controlFilter(s, 'Groups', 'displayName', 'eq');
}
