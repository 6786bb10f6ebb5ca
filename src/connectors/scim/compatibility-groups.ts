import { randomBytes } from 'node:crypto';
import type { TargetAccount } from '../../domain/account';
import { isRefusalByTarget } from '../../domain/compatibility-hint';
import { isProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import { failedNote, refusal } from './compatibility-account';
import { isScimBody } from './compatibility-endpoints';
import type { CompatibilitySession, ProbeAnswer } from './compatibility-session';
import {
  controlFilter,
  controlGroupEq,
  describeStrangers,
  strangers,
} from './compatibility-filter-control';
import { createTestGroup } from './compatibility-test-objects';
import { attributeFilter } from './filter';
import { scimUrl } from './scim-paths';

/** The group the run granted and revoked; `temporary` when the run created it. */
export interface TestGroup {
  id: string;
  displayName: string;
  temporary: boolean;
}

/** What the group part of the run leaves for the rest: the group, and whether Groups exist at all. */
export interface GroupFindings {
  group?: TestGroup;
  /** GET /Groups answered 404: the server has no groups. */
  noGroups: boolean;
  /** Why no group was used, when none was. */
  noGroupBecause?: string;
}

/** A piece of the group name for the `co` search: the middle of it, so `sw`/`ew` would not do. */
export function searchText(name: string): string {
  if (name.length <= 3) return name;
  const size = Math.max(3, Math.floor(name.length / 2));
  const start = Math.floor((name.length - size) / 2);
  return name.slice(start, start + size);
}

function testGroup(group: { id: string; displayName: string }, temporary: boolean): TestGroup {
  return { id: group.id, displayName: group.displayName, temporary };
}

/** The operator's group by name (`displayName eq`), else the catalogue's first, else a temporary one. */
async function pickGroup(
  s: CompatibilitySession,
  groupName: string | undefined,
): Promise<GroupFindings & { foundByName?: boolean }> {
  if (groupName !== undefined) {
    const named = await s.attempt(`find group "${groupName}" (displayName eq)`, () =>
      s.connector.findGroup(groupName),
    );
    if (named.value !== undefined) {
      s.check(
        4,
        'eq',
        true,
        `displayName eq found group "${named.value.displayName}"`,
        named.evidence,
      );
      return { group: testGroup(named.value, false), noGroups: false, foundByName: true };
    }
    if (named.error !== undefined && named.error.status !== 404) {
      s.check(
        4,
        'eq',
        refusal(named.error),
        failedNote('displayName eq', named.error),
        named.evidence,
      );
    } else {
      s.note(`use group "${groupName}"`, 'skipped', 'displayName eq did not find it');
    }
  }
  const catalogue = await s.attempt('read the group catalogue (GET /Groups)', async () => {
    for await (const group of s.connector.importGroups()) return group;
    return undefined;
  });
  if (catalogue.error !== undefined) {
    const noGroups = catalogue.error.status === 404;
    s.noGroups = noGroups;
    s.observe(
      'import',
      noGroups || isRefusalByTarget(catalogue.error) ? 'will fail' : 'untested',
      noGroups
        ? `GET /Groups answered 404: the server has no groups`
        : `GET /Groups: ${catalogue.error.message}`,
    );
    return {
      noGroups,
      noGroupBecause: noGroups
        ? 'the server has no groups (GET /Groups answered 404)'
        : `the group catalogue could not be read: ${catalogue.error.message}`,
    };
  }
  s.observe(
    'import',
    'works',
    `GET /Groups answered a page ${catalogue.value === undefined ? 'without groups' : 'of groups'}`,
  );
  if (catalogue.value !== undefined) {
    return { group: testGroup(catalogue.value, false), noGroups: false };
  }
  const name = `${s.testAccount}-group`;
  const created = await s.attempt('create a temporary test group (POST /Groups)', () =>
    createTestGroup(s.connector, name),
  );
  if (created.value === undefined) {
    return {
      noGroups: false,
      noGroupBecause: `the server has no group, and did not create a temporary one: ${created.error?.message ?? ''}`,
    };
  }
  return { group: testGroup(created.value, true), noGroups: false };
}

/** Point 4 on groups: `displayName eq` finds the group the run uses. */
async function tryGroupEq(s: CompatibilitySession, group: TestGroup): Promise<void> {
  const found = await s.attempt(`find group "${group.displayName}" (displayName eq)`, () =>
    s.connector.findGroup(group.displayName),
  );
  if (found.value !== undefined) {
    s.check(
      4,
      'eq',
      found.value.id === group.id,
      `displayName eq ${found.value.id === group.id ? 'found' : 'found another group than'} "${group.displayName}"`,
      found.evidence,
    );
  } else if (found.error === undefined) {
    s.check(
      4,
      'eq',
      false,
      `displayName eq did not find group "${group.displayName}"`,
      found.evidence,
    );
  } else {
    s.check(
      4,
      'eq',
      refusal(found.error),
      failedNote('displayName eq', found.error),
      found.evidence,
    );
  }
}

/** A `co` probe; when the server cannot be reached it shows nothing (and says so). */
async function probeCo(
  s: CompatibilitySession,
  name: string,
  url: URL,
): Promise<ProbeAnswer | undefined> {
  try {
    return await s.probe('GET', url);
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    s.note(name, 'failed', error.message);
    s.check(4, 'co', undefined, `${name}: ${error.message}`, []);
    return undefined;
  }
}

/** `co` on Users, where Groups cannot show it: the test account must be found by part of its name. */
async function tryUsersCo(
  s: CompatibilitySession,
  account: TargetAccount | undefined,
): Promise<void> {
  if (account === undefined) {
    s.check(
      4,
      'co',
      undefined,
      'co could not be tried: no group to search and no test account',
      [],
    );
    return;
  }
  const text = searchText(s.testAccount);
  const name = `search users (userName co "${text}")`;
  const answer = await probeCo(
    s,
    name,
    scimUrl(s.settings.baseUrl, 'Users', undefined, {
      filter: attributeFilter('userName', 'co', text),
    }),
  );
  if (answer === undefined) return;
  const { result, evidence } = answer;
  const resources = (result.body as { Resources?: unknown } | undefined)?.Resources;
  if (result.status === 200 && Array.isArray(resources)) {
    const hit = resources.some((r) => (r as { id?: unknown } | null)?.id === account.id);
    const found = strangers(result.body, 'userName', 'co', text);
    const ignored =
      found.length === 0 ? '' : `, and ${describeStrangers(found)}: the server ignores the filter`;
    s.note(name, hit && found.length === 0 ? 'succeeded' : 'failed');
    s.check(
      4,
      'co',
      hit && found.length === 0,
      `userName co "${text}" ${hit ? 'found' : 'did not find'} the test account${ignored}`,
      evidence,
    );
    if (hit) await controlFilter(s, 'Users', 'userName', 'co');
  } else {
    s.note(name, 'failed', `${result.describe} answered ${result.status}`);
    s.check(
      4,
      'co',
      result.status >= 400 && result.status < 500 && result.status !== 404 ? false : undefined,
      `userName co: ${result.describe} answered ${result.status}`,
      evidence,
    );
  }
}

/** Point 4's `co` where the service uses it (group search), then on Users if needed. */
async function tryCo(
  s: CompatibilitySession,
  found: GroupFindings,
  account: TargetAccount | undefined,
): Promise<void> {
  const { group } = found;
  if (group !== undefined) {
    const text = searchText(group.displayName);
    const search = await s.attempt(`search groups (displayName co "${text}")`, () =>
      s.connector.searchGroups(text),
    );
    if (search.value !== undefined) {
      const hit = search.value.some((g: GroupRef) => g.id === group.id);
      // Finding the group is not enough: a server that ignores the filter answers every group.
      const found = strangers({ Resources: search.value }, 'displayName', 'co', text);
      const ignored =
        found.length === 0
          ? ''
          : `, and ${describeStrangers(found)}: the server ignores the filter`;
      const note = `displayName co "${text}" ${hit ? 'found' : 'did not find'} group "${group.displayName}"${ignored}`;
      const holds = hit && found.length === 0;
      s.check(4, 'co', holds, note, search.evidence);
      s.observe('groupSearch', holds ? 'works' : 'will fail', note, 4);
      if (hit) await controlFilter(s, 'Groups', 'displayName', 'co');
    } else if (search.error !== undefined) {
      const note = failedNote('displayName co', search.error);
      s.check(4, 'co', refusal(search.error), note, search.evidence);
      s.observe('groupSearch', isRefusalByTarget(search.error) ? 'will fail' : 'untested', note, 4);
    }
    return;
  }
  if (found.noGroups) {
    s.observe('groupSearch', 'will fail', 'the server has no groups (GET /Groups answered 404)');
    await tryUsersCo(s, account);
    return;
  }
  // No group to find: a `co` on Groups still shows a refusal, or a server that ignores it.
  const text = `compat-${randomBytes(4).toString('hex')}`;
  const name = `search groups (displayName co "${text}")`;
  const answer = await probeCo(
    s,
    name,
    scimUrl(s.settings.baseUrl, 'Groups', undefined, {
      filter: attributeFilter('displayName', 'co', text),
      excludedAttributes: 'members',
    }),
  );
  if (answer === undefined) return;
  const { result, evidence } = answer;
  const said = `${result.describe} answered ${result.status}`;
  if (result.status === 200 && isScimBody(result.body)) {
    const found = strangers(result.body, 'displayName', 'co', text);
    if (found.length > 0) {
      s.note(name, 'failed', `answered ${describeStrangers(found)}`);
      const note = `displayName co "${text}" answered ${describeStrangers(found)}: the server ignores the filter`;
      s.check(4, 'co', false, note, evidence);
      s.observe('groupSearch', 'will fail', note, 4);
      return;
    }
    // A 200 with nothing proves nothing: no group was there to be found (DESIGN invariant 11).
    // The positive control is the test account, found by part of its name on Users.
    s.note(name, 'succeeded', 'answered 200 with an empty list');
    const note = `displayName co "${text}" was answered 200 with an empty list, but no group was there to find: an empty answer shows nothing`;
    s.check(4, 'co', undefined, note, evidence);
    s.observe('groupSearch', 'untested', note, 4);
    await tryUsersCo(s, account);
    return;
  }
  s.note(name, 'failed', said);
  if (result.status >= 400 && result.status < 500 && result.status !== 404) {
    const note = `displayName co was refused: ${said}`;
    s.check(4, 'co', false, note, evidence);
    s.observe('groupSearch', 'will fail', note, 4);
    return;
  }
  // A 404 may be an unknown filter or an empty result (scim-interop.md): Users must tell.
  s.observe(
    'groupSearch',
    'untested',
    `displayName co: ${said}, which may mean an empty result`,
    4,
  );
  await tryUsersCo(s, account);
}

/**
 * The group the run grants and revokes (the operator's, the catalogue's first, or a
 * temporary one the run creates where `POST /Groups` is allowed), and point 4 on groups:
 * `displayName eq` finds it and `co` finds it, and neither answers a group for a name no
 * group has (negative controls). With no group to find, an empty answer shows nothing: `co`
 * is tried on Users then, where the test account is the positive control.
 */
export async function findTestGroup(
  s: CompatibilitySession,
  account: TargetAccount | undefined,
  groupName: string | undefined,
): Promise<GroupFindings> {
  const { foundByName, ...found } = await pickGroup(s, groupName);
  if (found.group !== undefined && foundByName !== true) await tryGroupEq(s, found.group);
  if (!found.noGroups) await controlGroupEq(s);
  await tryCo(s, found, account);
  return found;
}
