import { randomUUID } from 'node:crypto';
import { isLinked, type AccountRecord } from '../domain/account-record';
import { ProvisioningError } from '../domain/errors';
import { judgeOperatorLink, LINK_REASON_MAX, type LinkAsk } from '../domain/operator-link';
import { operatorText } from '../domain/operator-text';
import type { LeaseResult } from '../store/account-state';
import type { WorkflowServices } from './workflow-services';

/** What a refusal for want of a record needs of the target: nothing. */
const NOTHING_SEEN = { holder: undefined, linked: undefined };

/** How long the link holds the account's lease: a few reads and one write. */
const LINK_LEASE_MS = 60_000;

/** What an operator's link did. */
export interface LinkResult {
  connector: string;
  accountId: string;
  linked: boolean;
  /** Why nothing was linked, where nothing was. */
  note?: string;
  targetId: string;
}

/**
 * An operator links an account ID to the object that holds it now, after a lookup refused it
 * with ACCOUNT_EXISTS (the API's `POST /api/connectors/{name}/accounts/{accountId}/link`, the
 * CLI's `link`): judged on what the target shows (`judgeOperatorLink`), then written under
 * the account's lease (DESIGN invariant 7: never between a request's writes), with who, why
 * and the object linked before kept in the account's record. Nothing is written on the
 * target and nothing is journaled: the journal holds changes made on the target.
 * Throws REQUEST_INVALID (a reason or id that is empty, too long or holds control
 * characters), REQUEST_CONFLICT (what the target shows does not allow it), ACCOUNT_BUSY (a
 * request holds the account).
 *
 * @example
 * await linkAccountByOperator(services, 'hr', 'ada', { targetId: 'u2', reason: 'HR-1234', byName: 'bob', at });
 */
export async function linkAccountByOperator(
  services: Pick<WorkflowServices, 'registry' | 'accounts'> & { now?: () => number },
  connectorName: string,
  accountId: string,
  ask: LinkAsk,
): Promise<LinkResult> {
  const connector = services.registry.get(connectorName);
  if (connector === undefined) {
    throw new ProvisioningError('CONNECTOR_NOT_FOUND', `unknown connector "${connectorName}"`, {
      object: connectorName,
    });
  }
  const reason = operatorText(
    `the reason to link account "${accountId}"`,
    ask.reason,
    LINK_REASON_MAX,
    accountId,
  );
  const targetId = operatorText(
    `the target id to link account "${accountId}" to`,
    ask.targetId,
    256,
    accountId,
  );
  const where = { connector: connectorName, accountId };
  // Nothing linked: refused before the lease (which would make a row for any name).
  if (!isLinked(await services.accounts.get(connectorName, accountId))) {
    const judged = judgeOperatorLink(where, undefined, NOTHING_SEEN, ask, 0, 0);
    if ('refused' in judged) {
      throw new ProvisioningError('REQUEST_CONFLICT', judged.refused, { object: accountId });
    }
  }
  const now = services.now ?? Date.now;
  const owner = `operator-link-${randomUUID()}`;
  let lease = await services.accounts.acquire(
    connectorName,
    accountId,
    owner,
    now(),
    LINK_LEASE_MS,
  );
  if (!lease.acquired) throw busy(where, lease);
  const stored: AccountRecord | null = lease.record ?? null;
  let held = true;
  try {
    const linkedId = stored?.targetId ?? '';
    const [holder, linked] = await Promise.all([
      connector.findAccount(accountId),
      linkedId === ''
        ? Promise.resolve(undefined)
        : connector.readAccount({ id: linkedId, accountId, enabled: stored?.enabled ?? true }),
    ]);
    const judged = judgeOperatorLink(
      where,
      stored ?? undefined,
      { holder, linked },
      { ...ask, reason, targetId },
      now(),
      connector.capabilities.visibilityWindowMs,
    );
    if ('refused' in judged) {
      throw new ProvisioningError('REQUEST_CONFLICT', judged.refused, { object: accountId });
    }
    if ('already' in judged) {
      return { connector: connectorName, accountId, linked: false, note: judged.already, targetId };
    }
    // The reads may have outlasted the lease (a throttled target): renewed before the one
    // write, refused when a request took the account meanwhile or its record moved since it
    // was judged, so the link never lands between a request's writes.
    const renewedAtMs = now();
    lease = await services.accounts.acquire(
      connectorName,
      accountId,
      owner,
      renewedAtMs,
      LINK_LEASE_MS,
    );
    if (!lease.acquired) {
      held = false;
      throw busy(where, lease);
    }
    const current = lease.record ?? null;
    if (current?.targetId !== stored?.targetId || current?.linkedAt !== stored?.linkedAt) {
      throw new ProvisioningError(
        'REQUEST_CONFLICT',
        `account "${accountId}" on connector "${connectorName}": its record changed while the ` +
          `link was judged (now linked to ${current?.targetId || 'nothing'}): nothing was linked; ` +
          'look again and send the link again if it still stands',
        { object: accountId },
      );
    }
    await services.accounts.commitStep({
      connector: connectorName,
      accountId,
      owner,
      leaseExpiresAtMs: renewedAtMs + LINK_LEASE_MS,
      ...(lease.etag === undefined ? {} : { etag: lease.etag }),
      entries: [],
      update: { link: judged.link },
      stored: current,
      release: true,
    });
    held = false;
    return { connector: connectorName, accountId, linked: true, targetId };
  } finally {
    if (held) {
      await services.accounts.release(
        connectorName,
        accountId,
        owner,
        lease.etag === undefined ? undefined : { etag: lease.etag, stored: lease.record ?? null },
      );
    }
  }
}

/** The refusal while another holder (a request, a restore) holds the account's lease. */
function busy(where: { connector: string; accountId: string }, lease: LeaseResult) {
  return new ProvisioningError(
    'ACCOUNT_BUSY',
    `account "${where.accountId}" on connector "${where.connector}": a request holds it ` +
      `(${lease.holder ?? 'another holder'}, until ${lease.expiresAt ?? 'soon'}): link it once that request ends`,
    { object: where.accountId, retryable: true },
  );
}
