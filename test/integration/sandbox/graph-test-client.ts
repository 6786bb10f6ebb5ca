import { Agent, fetch } from 'undici';
import { DEFAULT_SANDBOX_CLIENT } from '../../../src/sandbox/graph/index.js';
import type { GraphSandbox, GraphSandboxClient } from '../../../src/sandbox/graph/index.js';

/** What a test saw of one Graph call: an answer, or a destroyed socket (`reset`). */
export type GraphAnswer =
  | {
      reset: false;
      status: number;
      retryAfter: string | null;
      /** Every answer header, names lower-cased. */
      headers: Record<string, string>;
      body: Record<string, unknown> & {
        error?: { code: string; message: string };
        value?: ({ id: string } & Record<string, unknown>)[];
        responses?: { id: string; status: number; headers: Record<string, string> }[];
      };
    }
  | { reset: true; code: string };

export interface GraphTestClient {
  /** The access token the client calls with. */
  token: string;
  call(method: string, path: string, body?: unknown): Promise<GraphAnswer>;
  /** `@odata.id` reference to a directory object of this sandbox. */
  ref(id: string): { '@odata.id': string };
  close(): Promise<void>;
}

/**
 * Plain undici against the sandbox over real HTTPS: a client-credentials token from the
 * sandbox's own token endpoint (for `client`, default the sandbox's default app), then
 * Graph calls. Resets come back as data so tests can assert on them.
 */
export async function graphTestClient(
  sandbox: GraphSandbox,
  client: Pick<GraphSandboxClient, 'clientId' | 'secret'> = DEFAULT_SANDBOX_CLIENT,
): Promise<GraphTestClient> {
  const agent = new Agent({ connect: { ca: sandbox.ca } });
  const tokenAnswer = await fetch(`${sandbox.authority}/${sandbox.tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.secret,
      scope: `${sandbox.graphEndpoint}/.default`,
    }).toString(),
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  return {
    token,
    async call(method, path, body) {
      try {
        const response = await fetch(`${sandbox.graphEndpoint}/v1.0${path}`, {
          method,
          dispatcher: agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return {
          reset: false,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          headers: Object.fromEntries(response.headers),
          body: text === '' ? {} : (JSON.parse(text) as Record<string, never>),
        };
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        return { reset: true, code: cause?.code ?? String(error) };
      }
    },
    ref: (id) => ({ '@odata.id': `${sandbox.graphEndpoint}/v1.0/directoryObjects/${id}` }),
    close: () => agent.close(),
  };
}

/** A POST /users body for a valid new user of the sandbox's default domain. */
export function newUserBody(localPart: string): Record<string, unknown> {
  return {
    accountEnabled: true,
    displayName: localPart,
    mailNickname: localPart.replace(/[^A-Za-z0-9]/g, ''),
    userPrincipalName: `${localPart}@contoso.example`,
    passwordProfile: { password: 'Sandbox-Pw-1!', forceChangePasswordNextSignIn: false },
  };
}
