import { randomUUID } from 'node:crypto';
import { contentTypeOf } from '../../domain/health-probe';
import { isProvisioningError } from '../../domain/errors';
import type { CompatibilitySession } from './compatibility-session';
import { notFoundAnswerOf, type NotFoundAnswer } from './not-found-answer';
import { scimUrl } from './scim-paths';

const SHAPES: Record<NotFoundAnswer, string> = {
  scimError: 'with a SCIM error',
  scim11Error: 'with a SCIM 1.1 error ({"Errors": [...]})',
  empty: 'without a body',
};

/**
 * How the server says an object is missing: one read of a user id no one has. A SCIM error
 * is what the connector takes; a 404 without a body or with a SCIM 1.1 error is taken only
 * with `notFoundAnswer` set to that shape, which the run then suggests and uses (its cleanup
 * reads depend on it); any other 404 (an HTML page) cannot be told from a gateway's.
 */
export async function tryNotFoundAnswer(s: CompatibilitySession): Promise<void> {
  const id = `compat-missing-${randomUUID()}`;
  const step = 'read a user id no one has (GET /Users/{id})';
  let answer;
  try {
    answer = await s.probe('GET', scimUrl(s.settings.baseUrl, 'Users', id));
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    s.note(step, 'failed', error.message);
    return;
  }
  const { result, evidence } = answer;
  const said = `${result.describe} answered ${result.status}`;
  if (result.status !== 404) {
    s.note(step, 'failed', `answered ${result.status}`);
    s.check(
      1,
      'not found',
      result.status < 300 ? false : undefined,
      `${said} for a user id no one has`,
      evidence,
    );
    return;
  }
  const shape = notFoundAnswerOf(result);
  if (shape === undefined) {
    s.note(step, 'failed', `answered 404 (${contentTypeOf(result.headers)})`);
    s.check(
      1,
      'not found',
      false,
      `${said} (${contentTypeOf(result.headers)}): neither a SCIM error nor a shape the connector can be set to take, so it cannot be told from a gateway's 404; reads and deletes of missing objects will fail`,
      evidence,
    );
    return;
  }
  s.note(step, 'succeeded', `answered 404 ${SHAPES[shape]}`);
  if (shape === 'scimError' || shape === s.settings.notFoundAnswer) {
    const as = shape === 'scimError' ? '' : ` (taken with notFoundAnswer: ${shape}, as configured)`;
    s.check(1, 'not found', true, `${said} ${SHAPES[shape]}${as}`, evidence);
    return;
  }
  s.check(
    1,
    'not found',
    false,
    `${said} ${SHAPES[shape]}, not a SCIM error: the connector does not take it for "not found" as configured`,
    evidence,
  );
  s.suggest({
    setting: 'notFoundAnswer',
    value: shape,
    point: 1,
    tried: true,
    reason: `the server answers an object it does not have with 404 ${SHAPES[shape]}: with this setting the connector takes exactly that answer for "not found" (an HTML page still proves nothing)`,
  });
  s.check(
    1,
    'not found',
    true,
    `${said} ${SHAPES[shape]}, which the connector takes for "not found" with notFoundAnswer: ${shape}`,
    evidence,
    { setting: 'notFoundAnswer', value: shape },
  );
  s.use({ notFoundAnswer: shape });
}
