import type { GraphReply } from '../graph/graph-error.js';

/** Key Vault's error body `{ error: { code, message, innererror? } }` with its status. */
export function keyVaultError(
  status: number,
  code: string,
  message: string,
  options: { innerCode?: string; headers?: Record<string, string> } = {},
): GraphReply {
  return {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...options.headers },
    body: {
      error: {
        code,
        message,
        ...(options.innerCode === undefined ? {} : { innererror: { code: options.innerCode } }),
      },
    },
  };
}

/** 404 `SecretNotFound`, worded as Key Vault words it. */
export function secretNotFound(name: string): GraphReply {
  return keyVaultError(
    404,
    'SecretNotFound',
    `A secret with (name/id) ${name} was not found in this key vault. If you recently deleted this secret you may be able to recover it using the correct recovery command.`,
  );
}
