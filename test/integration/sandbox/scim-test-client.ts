/** What a test saw of one SCIM call: an answer, or a destroyed socket (`reset`). */
export type ScimAnswer =
  | {
      reset: false;
      status: number;
      retryAfter: string | null;
      body: Record<string, unknown> | undefined;
    }
  | { reset: true };

export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** One SCIM call with plain fetch; a reset comes back as data. */
export async function scimCall(url: string, method = 'GET', body?: unknown): Promise<ScimAnswer> {
  try {
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      reset: false,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
    };
  } catch {
    return { reset: true };
  }
}

/** A PatchOp message body (RFC 7644 §3.5.2). */
export function patchOp(...Operations: unknown[]): Record<string, unknown> {
  return { schemas: [PATCH_OP], Operations };
}

export const outcome = (answer: ScimAnswer): number | 'reset' =>
  answer.reset ? 'reset' : answer.status;
