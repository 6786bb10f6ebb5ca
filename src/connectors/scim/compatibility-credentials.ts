import type { Evidence } from '../../domain/compatibility-result';
import { isProvisioningError } from '../../domain/errors';
import type { CompatibilitySession } from './compatibility-session';

/** The answer of the Users search made with the configured credentials. */
export interface AcceptedAnswer {
  url: URL;
  status: number;
  evidence: Evidence[];
}

/**
 * Point 2 once the configured credentials were answered: a 200 alone does not show the
 * server checked them (a server that ignores authentication, or a proxy in front of it,
 * answers 200 to anyone). The same request is sent again with a credential the server must
 * refuse (a random one of the same scheme, a secret of the transport: never shown); only a
 * refusal of that one (401 or 403) shows the configured credentials were accepted
 * (DESIGN invariant 11).
 */
export async function judgeAcceptedCredentials(
  s: CompatibilitySession,
  accepted: AcceptedAnswer,
): Promise<void> {
  const scheme = s.settings.auth.type;
  if (scheme === 'none') {
    s.check(
      2,
      'credentials',
      undefined,
      'the connector is configured without credentials, so bearer/Basic support was not exercised',
      [],
    );
    return;
  }
  const step = `search again with a wrong ${scheme} credential (it must be refused)`;
  let control;
  try {
    control = await s.probe('GET', accepted.url, s.connectorWithWrongCredential());
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    s.note(step, 'failed', error.message);
    s.check(
      2,
      'credentials',
      undefined,
      `the server answered ${accepted.status} to the ${scheme} credentials, but the same request with a wrong credential got no answer (${error.message}): whether the server checks credentials could not be seen`,
      accepted.evidence,
    );
    return;
  }
  const { result } = control;
  const evidence = [...accepted.evidence, ...control.evidence];
  if (result.status === 401 || result.status === 403) {
    s.note(step, 'succeeded', `answered ${result.status}`);
    s.check(
      2,
      'credentials',
      true,
      `the server accepted the ${scheme} credentials (answered ${accepted.status}) and refused a wrong one (answered ${result.status})`,
      evidence,
    );
    return;
  }
  s.note(step, 'failed', `answered ${result.status}`);
  s.check(
    2,
    'credentials',
    undefined,
    `credentials not checked by the server: the same request with a wrong ${scheme} credential was answered ${result.status} too, so the ${accepted.status} shows nothing about the configured credentials`,
    evidence,
  );
}
