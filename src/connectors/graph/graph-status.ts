import {
  credentialState,
  EXPIRY_NOTICE_DAYS,
  type CredentialState,
} from '../../domain/credential-expiry';
import { isProvisioningError } from '../../domain/errors';
import type { StatusFinding, StatusResult } from '../connector';
import type { GraphContext } from './graph-context';
import { runPermissionProbes } from './permission-probes';
import { noPermissionGranted, permissionReport } from './permission-report';
import type { RolesClaim } from './token-provider';

export interface StatusOptions {
  /** Also run the probe reads that prove the read permissions (graph-behaviour.md, Tokens). */
  probe?: boolean;
}

/**
 * Spec: "Check status" is token acquisition: `ok` means a token was obtained, nothing more
 * (Connector B rule 3). Beyond the spec, the permission report: one finding per task of the
 * permission table, from the token's `roles` claim (a hint) and, on request, from the probe
 * reads (proof).
 */
export async function checkStatus(
  context: GraphContext,
  options: StatusOptions = {},
): Promise<StatusResult> {
  const credential = await secretState(context);
  const base = {
    connector: context.settings.name,
    kind: 'graph' as const,
    ...(credential === undefined ? {} : { credential }),
  };
  const secretFindings = credential === undefined ? [] : [secretFinding(credential)];
  let claim: RolesClaim;
  try {
    claim = (await context.tokens.acquire()).rolesClaim;
  } catch (error) {
    const message = isProvisioningError(error) ? error.message : 'token acquisition failed';
    return {
      ...base,
      ok: false,
      summary: message,
      ...(isProvisioningError(error) ? { error: { code: error.code, message } } : {}),
      findings: [{ name: 'Access token', outcome: 'failed', detail: message }, ...secretFindings],
    };
  }
  const probes = options.probe === true ? await runPermissionProbes(context) : undefined;
  const app = { clientId: context.settings.clientId, tenantId: context.settings.tenantId };
  const obtained = `token obtained from ${context.tokens.authority}`;
  return {
    ...base,
    ok: true,
    summary:
      claim.kind === 'absent'
        ? `${obtained}, but ${noPermissionGranted(app)}`
        : `${obtained}; this confirms the app's credentials, not its Graph permissions` +
          (probes === undefined ? ' (run with the probe reads to prove the read permissions)' : ''),
    findings: [
      {
        name: 'Access token',
        outcome: 'ok',
        detail: `obtained from ${context.tokens.authority} for ${context.settings.scopes.join(' ')}`,
      },
      ...secretFindings,
      ...permissionReport(claim, probes, app),
    ],
  };
}

/** The client secret's expiry, when the secret store or the settings say; a store that fails says nothing here (the token attempt reports it). */
async function secretState(context: GraphContext): Promise<CredentialState | undefined> {
  try {
    const expiry = await context.tokens.secretExpiry();
    return expiry === undefined ? undefined : credentialState(expiry, context.now());
  } catch {
    return undefined;
  }
}

function secretFinding(state: CredentialState): StatusFinding {
  const day = state.expiresOn.slice(0, 10);
  const detail = state.expired
    ? `expired on ${day}, as its ${state.source} says: add a new secret to the app registration and store it under the same name`
    : `expires on ${day}, in ${state.daysLeft} day${state.daysLeft === 1 ? '' : 's'}, as its ${state.source} says` +
      (state.daysLeft < EXPIRY_NOTICE_DAYS ? ': rotate it soon' : '');
  return { name: 'Client secret', outcome: state.expired ? 'failed' : 'ok', detail };
}
