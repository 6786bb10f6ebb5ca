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
 * Point 4's negative control on Groups: `displayName eq` on a name no group has must answer
 * no group (or 404). A server that answers groups anyway ignores the filter: `eq` does not
 * fit, whatever a lookup of an existing group found.
 */
export async function controlGroupEq(s: CompatibilitySession): Promise<void> {
  const name = `compat-none-${randomBytes(4).toString('hex')}`;
  const step = `search groups for a name no group has (displayName eq "${name}")`;
  let answer;
  try {
    answer = await s.probe(
      'GET',
      scimUrl(s.settings.baseUrl, 'Groups', undefined, {
        filter: attributeFilter('displayName', 'eq', name),
        excludedAttributes: 'members',
      }),
    );
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    s.note(step, 'failed', error.message);
    return;
  }
  const { result, evidence } = answer;
  const found = result.status === 200 ? strangers(result.body, 'displayName', 'eq', name) : [];
  s.note(step, found.length === 0 ? 'succeeded' : 'failed', `answered ${result.status}`);
  if (found.length === 0) return;
  s.check(
    4,
    'eq',
    false,
    `displayName eq "${name}" answered ${describeStrangers(found)}: the server ignores the filter`,
    evidence,
  );
}
