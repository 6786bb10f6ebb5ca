import { isProvisioningError } from '../../domain/errors';
import type { GraphContext } from './graph-context';
import { readGraphError } from './graph-error-mapper';
import { readPage } from './graph-http';
import { NO_PREMIUM_LICENCE } from './graph-last-logon';
import { isGroupObject, isLimitedObject, type GraphObject } from './graph-objects';
import { segment } from './graph-urls';

/** What one probe read showed. */
export type ProbeOutcome =
  /** 200: the call is permitted. */
  | { kind: 'allowed'; objects: GraphObject[] }
  /** 403: the call is refused. */
  | { kind: 'refused'; answer: string }
  /** 403 for want of an Entra ID P1/P2 licence: no permission would help. */
  | { kind: 'no-licence'; answer: string }
  /** Any other answer, or no answer: the probe shows nothing about permissions. */
  | { kind: 'failed'; reason: string };

export interface ProbeRead {
  /** Method and path, as the report names its evidence. */
  call: string;
  outcome: ProbeOutcome;
}

/** The probe reads of one status check (graph-behaviour.md: Tokens). */
export interface PermissionProbes {
  users: ProbeRead;
  groups: ProbeRead;
  signIns: ProbeRead;
  /** An account's memberOf; absent when no account could be read to probe with. */
  accountGroups?: ProbeRead;
}

/**
 * Runs the probe reads that prove read permissions: `GET /users`, `GET /groups` and
 * `GET /users` with signInActivity (graph-behaviour.md: Tokens), then the memberOf of the
 * first account found. Writes are never probed: a probe would change the directory.
 */
export async function runPermissionProbes(context: GraphContext): Promise<PermissionProbes> {
  const [users, groups, signIns] = await Promise.all([
    probe(context, '/users?$top=1&$select=id'),
    probe(context, '/groups?$top=1&$select=id'),
    probe(context, '/users?$top=1&$select=id,signInActivity'),
  ]);
  const firstUser = users.outcome.kind === 'allowed' ? users.outcome.objects[0]?.id : undefined;
  if (typeof firstUser !== 'string') return { users, groups, signIns };
  const accountGroups = await probe(
    context,
    `/users/${segment(firstUser)}/memberOf?$top=10&$select=id,displayName`,
  );
  return { users, groups, signIns, accountGroups };
}

/** Groups of a memberOf probe: shown in full, or with only their type and id. */
export function probedGroups(read: ProbeRead): { full: number; limited: number } {
  const groups = read.outcome.kind === 'allowed' ? read.outcome.objects.filter(isGroupObject) : [];
  const limited = groups.filter(isLimitedObject).length;
  return { full: groups.length - limited, limited };
}

async function probe(context: GraphContext, path: string): Promise<ProbeRead> {
  const call = `GET ${path}`;
  try {
    const result = await context.http.send({ method: 'GET', path });
    if (result.status === 200) {
      return {
        call,
        outcome: { kind: 'allowed', objects: readPage(result.body, result.describe).value },
      };
    }
    const code = readGraphError(result.body).code;
    const answer = `${result.status}${code === undefined ? '' : ` ${code}`}`;
    if (result.status === 403) {
      return {
        call,
        outcome:
          code === NO_PREMIUM_LICENCE
            ? { kind: 'no-licence', answer }
            : { kind: 'refused', answer },
      };
    }
    return { call, outcome: { kind: 'failed', reason: `it answered ${answer}` } };
  } catch (error) {
    const reason = isProvisioningError(error) ? `${error.code}: ${error.message}` : 'no answer';
    return { call, outcome: { kind: 'failed', reason } };
  }
}
