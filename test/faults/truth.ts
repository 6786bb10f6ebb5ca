import type { SandboxConnectors } from '../../src/runtime/sandbox-connectors';
import type { AccountState } from './expected-state';
import { GROUPS } from './workload';

/**
 * The true state of an account on a sandbox: its committed state, never a replica's. The
 * judge of the fault suite reads only this (and the sandboxes' truth logs).
 */
export function trueState(
  sandboxes: SandboxConnectors,
  connector: string,
  accountId: string,
): AccountState {
  if (connector === 'scim-sandbox') {
    const user = sandboxes.scim.getUser(accountId);
    if (user === undefined) return { exists: false, enabled: false, groups: [] };
    const groups = GROUPS.filter((name) => {
      const members = (sandboxes.scim.getGroup(name)?.members ?? []) as { value?: string }[];
      return members.some((member) => member.value === accountId);
    });
    return {
      exists: true,
      enabled: user.active !== false,
      groups: groups.sort(),
      ...(typeof user.displayName === 'string' ? { displayName: user.displayName } : {}),
    };
  }
  const id = sandboxes.graph.userIdByUpn(accountId);
  const user = id === undefined ? undefined : sandboxes.graph.getUser(id);
  if (id === undefined || user === undefined) return { exists: false, enabled: false, groups: [] };
  const held = new Set(sandboxes.graph.groupIdsOf(id));
  const profile = user.passwordProfile as { password?: string } | undefined;
  return {
    exists: true,
    enabled: user.accountEnabled !== false,
    groups: GROUPS.filter((name) => held.has(sandboxes.graphGroups[name]!)).sort(),
    ...(typeof user.displayName === 'string' ? { displayName: user.displayName } : {}),
    ...(profile?.password === undefined ? {} : { password: profile.password }),
  };
}

/** A change the truth log shows, named as the journal names changes. */
export interface TrueChange {
  at: number;
  change: string;
  /** The group's display name, for member changes. */
  group?: string;
}

/** The changes a sandbox committed for an account (cascades of a delete excluded). */
export function trueChanges(
  sandboxes: SandboxConnectors,
  connector: string,
  accountId: string,
): TrueChange[] {
  const sandbox = connector === 'scim-sandbox' ? sandboxes.scim : sandboxes.graph;
  const names = new Map(
    Object.entries(connector === 'scim-sandbox' ? sandboxes.scimGroups : sandboxes.graphGroups).map(
      ([name, id]) => [id, name],
    ),
  );
  const key = accountId.toLowerCase();
  return sandbox
    .truthLog()
    .filter((event) => event.accountId.toLowerCase() === key && event.cascade !== true)
    .map((event) => ({
      at: event.at,
      change: event.change,
      ...(event.groupId === undefined ? {} : { group: names.get(event.groupId) ?? event.groupId }),
    }));
}
