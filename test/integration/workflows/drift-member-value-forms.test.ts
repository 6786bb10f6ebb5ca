import { beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSettings } from '../../../src/config/connector-settings';
import {
  reconciliationResult,
  type BulkPass,
  type ReconciliationResult,
} from '../../../src/domain/reconciliation-result';
import type { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import type { ActivityResult } from '../../../src/workflows/activity-result';
import { reconciliationActivities } from '../../../src/workflows/activities/reconciliation-activities';
import { importCatalogue, SCIM, useServiceBench } from '../../support/service-bench';

/*
 * A SCIM group may hold an account under its userName or under its SCIM id (RFC 7643's
 * `members.value`, which Entra, Okta and admin screens write; a lax server takes both, as the
 * sandbox does). Reconciliation reads each group's members whole: access held in the form the
 * service does not write is still the account's access. Missed, an outside grant goes
 * unreported (or is reported as a member the service does not link), and a membership the
 * service made, held in the other form, is reported removed. Judged on the sandbox's truth
 * (`groupIdsOf` counts both forms) and on the stored findings.
 */
const withMemberValue =
  (memberValue: 'accountId' | 'scimId') =>
  (settings: ConnectorSettings): ConnectorSettings =>
    settings.name === SCIM ? ({ ...settings, memberValue } as ConnectorSettings) : settings;

describe.each(['accountId', 'scimId'] as const)(
  'members held in either form (memberValue %s)',
  (form) => {
    const bench = useServiceBench({ connectorSettings: withMemberValue(form) });
    let activities: ReturnType<typeof reconciliationActivities>;
    let ids: Record<string, string>;
    let groups: Record<string, string>;

    beforeAll(async () => {
      activities = reconciliationActivities(async () => bench.runtime.services);
      const scim = bench.sandboxes.scim;
      // A member in every managed group: an empty group returns no member list to read whole.
      scim.seedUsers([{ userName: 'someone' }]);
      for (const id of Object.values(bench.sandboxes.scimGroups))
        await byHand(id, 'add', 'someone');
      await importCatalogue(bench, SCIM);
      for (const [accountId, granted] of [
        ['ada', ['Engineering']],
        ['bob', ['Sales']],
      ] as const) {
        const report = await bench.run({
          connector: SCIM,
          account: { accountId, displayName: accountId },
          actions: [{ type: 'create' }, { type: 'grant', groups: granted }],
        });
        expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
      }
      groups = bench.sandboxes.scimGroups;
      ids = Object.fromEntries(
        ['ada', 'bob', 'someone'].map((name) => [name, String(scim.getUser(name)?.id)]),
      );
    }, 60_000);

    /** The form the service writes, and the other one, of an account. */
    const written = (name: string) => (form === 'accountId' ? name : ids[name]!);
    const other = (name: string) => (form === 'accountId' ? ids[name]! : name);

    /** A change made on the SCIM server by its own administrators, outside the service. */
    async function byHand(groupId: string, op: 'add' | 'remove', value: string): Promise<void> {
      const sandboxes = bench.sandboxes;
      const operation =
        op === 'add'
          ? { op, path: 'members', value: [{ value }] }
          : { op, path: `members[value eq "${value}"]` };
      const response = await fetch(`${sandboxes.scim.endpoint}/Groups/${groupId}`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${sandboxes.handChanges.scimToken}`,
          'content-type': 'application/scim+json',
        },
        body: JSON.stringify({
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [operation],
        }),
      });
      expect(response.status, await response.text()).toBeLessThan(300);
    }

    async function reconcile(jobId: string): Promise<ReconciliationResult> {
      (bench.clock as VirtualClock).advanceBy(5 * 60_000);
      const at = new Date(bench.clock.now()).toISOString();
      const answer: ActivityResult<BulkPass> = await activities.reconcileTarget({
        connector: SCIM,
        jobId,
        at,
        readAt: at,
        settleMs: 120_000,
      });
      if (!answer.ok) throw new Error(`the pass failed: ${answer.error.message}`);
      expect(answer.value.deferred).toEqual([]);
      expect(answer.value.incomplete).toEqual([]);
      return reconciliationResult(answer.value, [], []);
    }

    async function openFindings(): Promise<
      { type: string; accountId?: string; member?: string; group?: string }[]
    > {
      const page = await bench.runtime.services.drift.query({
        connector: SCIM,
        status: 'open',
        limit: 500,
      });
      return page.findings
        .map((f) => ({
          type: f.type,
          ...(f.accountId === undefined ? { member: f.memberName } : { accountId: f.accountId }),
          group: f.groupName,
        }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    }

    const membershipsOf = (name: string) =>
      bench.sandboxes.scim
        .groupIdsOf(name)
        .map((id) => bench.sandboxes.scim.getGroup(id)?.displayName)
        .sort();

    const memberValues = (groupName: string) =>
      (
        (bench.sandboxes.scim.getGroup(groups[groupName]!)?.members as
          Array<{ value: string }> | undefined) ?? []
      ).map((member) => member.value);

    it('a membership the service made, now held in the other form, is no drift', async () => {
      await byHand(groups['Engineering']!, 'remove', written('ada'));
      await byHand(groups['Engineering']!, 'add', other('ada'));
      // The truth: ada is still in Engineering, under the form the service does not write.
      expect(membershipsOf('ada')).toEqual(['Engineering']);
      expect(memberValues('Engineering')).toContain(other('ada'));
      expect(memberValues('Engineering')).not.toContain(written('ada'));

      const result = await reconcile(`forms-${form}-held`);
      // Not even a candidate for a second read to refute.
      expect(result.unconfirmed.count, JSON.stringify(result)).toBe(0);
      const found = await openFindings();
      // The one account the service does not link, in each managed group; nothing of ada's.
      expect(found.filter((f) => f.member !== 'someone')).toEqual([]);
      expect(found).toHaveLength(Object.keys(groups).length);
    }, 60_000);

    it("access granted outside in the other form is found as the account's, once per group", async () => {
      // ada in Finance under the form the service does not write; bob in Support under both.
      await byHand(groups['Finance']!, 'add', other('ada'));
      await byHand(groups['Support']!, 'add', other('bob'));
      await byHand(groups['Support']!, 'add', written('bob'));
      expect(membershipsOf('ada')).toEqual(['Engineering', 'Finance']);
      expect(membershipsOf('bob')).toEqual(['Sales', 'Support']);

      const result = await reconcile(`forms-${form}-added`);
      expect(result.unconfirmed.count, JSON.stringify(result)).toBe(0);
      expect(result.found).toMatchObject({ memberAddedOutside: 2, unlinkedMember: 0 });
      const found = await openFindings();
      expect(found.filter((f) => f.member !== 'someone')).toEqual([
        { type: 'memberAddedOutside', accountId: 'ada', group: 'Finance' },
        { type: 'memberAddedOutside', accountId: 'bob', group: 'Support' },
      ]);
    }, 60_000);

    it('closes the finding once the access is gone in every form', async () => {
      await byHand(groups['Support']!, 'remove', other('bob'));
      // bob is still in Support, under the form the service writes: the finding stays.
      expect(membershipsOf('bob')).toEqual(['Sales', 'Support']);
      const still = await reconcile(`forms-${form}-still`);
      expect(still.closed).toBe(0);
      await byHand(groups['Support']!, 'remove', written('bob'));
      expect(membershipsOf('bob')).toEqual(['Sales']);

      const result = await reconcile(`forms-${form}-gone`);
      expect(result.closed).toBe(1);
      expect((await openFindings()).filter((f) => f.member !== 'someone')).toEqual([
        { type: 'memberAddedOutside', accountId: 'ada', group: 'Finance' },
      ]);
    }, 60_000);
  },
);
