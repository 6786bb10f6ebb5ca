import type { INetworkModule, NetworkRequestOptions, NetworkResponse } from '@azure/msal-node';
import { Agent, request } from 'undici';

/**
 * MSAL's only networking hook (platform-notes.md): token requests over undici, trusting
 * an extra certificate (a sandbox's self-signed one) for this client only, never
 * process-wide, and with the connector's timeout.
 */
export class MsalNetworkClient implements INetworkModule {
  private readonly agent: Agent;

  constructor(options: { ca?: string; timeoutMs: number }) {
    this.agent = new Agent({
      connect: {
        timeout: options.timeoutMs,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  sendGetRequestAsync<T>(
    url: string,
    options?: NetworkRequestOptions,
  ): Promise<NetworkResponse<T>> {
    return this.send<T>('GET', url, options);
  }

  sendPostRequestAsync<T>(
    url: string,
    options?: NetworkRequestOptions,
  ): Promise<NetworkResponse<T>> {
    return this.send<T>('POST', url, options);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send<T>(
    method: 'GET' | 'POST',
    url: string,
    options: NetworkRequestOptions | undefined,
  ): Promise<NetworkResponse<T>> {
    const response = await request(url, {
      method,
      headers: options?.headers ?? {},
      ...(method === 'POST' ? { body: options?.body ?? '' } : {}),
      dispatcher: this.agent,
    });
    const text = await response.body.text();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { headers, body: parseBody(text) as T, status: response.statusCode };
  }
}

/** MSAL reads error bodies too; a body that is not JSON reaches it as an empty object. */
function parseBody(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}
