import type { Connector } from '../connectors/connector';
import { changeMemberships } from '../connectors/membership-change';
import type { AccountProfile, TargetAccount } from '../domain/account';
import { ProvisioningError } from '../domain/errors';
import { describeGroup, type GroupRef } from '../domain/group';

export interface ProvisionRequest {
  profile: AccountProfile;
  create?: boolean;
  password?: string;
  /** Group display names. */
  grant?: string[];
  revoke?: string[];
  lock?: boolean;
  unlock?: boolean;
  delete?: boolean;
}

/**
 * Runs a provisioning request's actions in order against one connector and reports each
 * step: the CLI's stand-in for the orchestration, on the same connector methods.
 */
export async function provision(
  connector: Connector,
  request: ProvisionRequest,
  print: (line: string) => void,
): Promise<TargetAccount | undefined> {
  const { accountId } = request.profile;
  let account = await connector.findAccount(accountId);
  if (request.create === true) {
    const created = await connector.createAccount(request.profile, request.password);
    account = created.account;
    print(`  create       ${created.outcome} account "${accountId}" (id ${account.id})`);
  }
  const required = (): TargetAccount => {
    if (account === undefined) {
      throw new ProvisioningError(
        'ACCOUNT_NOT_FOUND',
        `account "${accountId}" not found on connector "${connector.name}"`,
        {
          object: accountId,
        },
      );
    }
    return account;
  };
  if ((request.grant?.length ?? 0) + (request.revoke?.length ?? 0) > 0) {
    const grant = await resolveGroups(connector, request.grant ?? []);
    const revoke = await resolveGroups(connector, request.revoke ?? []);
    const outcome = await changeMemberships(connector, required(), {
      grant: grant.map((group) => group.id),
      revoke: revoke.map((group) => group.id),
    });
    for (const group of [...grant, ...revoke]) outcome.names[group.id] ??= group.displayName;
    for (const change of outcome.changes) {
      print(
        `  membership   ${change.change} ${describeGroup({ id: change.groupId, displayName: change.groupName })}`,
      );
    }
    for (const id of outcome.plan.unchanged) {
      print(
        `  membership   unchanged ${describeGroup({ id, displayName: outcome.names[id] ?? id })} (already as requested)`,
      );
    }
    for (const id of outcome.alreadyInPlace) {
      print(
        `  membership   unchanged ${describeGroup({ id, displayName: outcome.names[id] ?? id })} (the target had it already)`,
      );
    }
    print(
      `  verify       ${outcome.verificationReads === 0 ? 'confirmed by the write answers' : `confirmed after ${outcome.verificationReads} read(s)`}`,
    );
    for (const notice of outcome.notices) print(`  notice       ${notice}`);
  }
  if (request.lock === true) {
    await connector.setEnabled(required(), false);
    print(`  lock         account locked`);
  }
  if (request.unlock === true) {
    await connector.setEnabled(required(), true);
    print(`  unlock       account unlocked`);
  }
  if (request.delete === true) {
    const outcome = await connector.deleteAccount(required());
    print(
      `  delete       ${outcome === 'deleted' ? 'account deleted' : 'account was already absent'}`,
    );
    account = undefined;
  }
  return account;
}

function resolveGroups(connector: Connector, names: string[]): Promise<GroupRef[]> {
  return Promise.all(names.map((name) => findGroupByName(connector, name)));
}

/** The group with this display name, or GROUP_NOT_FOUND naming it and the connector. */
export async function findGroupByName(connector: Connector, name: string): Promise<GroupRef> {
  const group = await connector.findGroup(name);
  if (group === undefined) {
    throw new ProvisioningError(
      'GROUP_NOT_FOUND',
      `group "${name}" not found on connector "${connector.name}"`,
      { object: name },
    );
  }
  return group;
}
