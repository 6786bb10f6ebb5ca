import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { loadConsoleAssets, type ConsoleAssets, type ConsoleFile } from './console-assets';
import { problem } from './http-problem';

/**
 * The console's Content-Security-Policy: its own scripts and styles only, no inline script
 * or style, no framing, no other origin, and the DOM's HTML sinks closed (Trusted Types):
 * a string a target supplied can only ever become text.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * `GET /api/console/{*path}`: the web console. Files under `assets/` carry their content's
 * hash in their names and are cached for a year; every other path is a page of the console
 * and gets `index.html`, never cached, so that a new build is picked up at once. The
 * console holds no data and no secret: what it shows comes from the API, with the
 * caller's own key or sign-in.
 */
export function consoleHandler(directory: string) {
  let assets: ConsoleAssets | undefined;
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    assets ??= loadConsoleAssets(directory);
    if (assets === undefined) {
      return problem(404, 'NOT_FOUND', 'the console is not in this build: run npm run build');
    }
    const path = request.params.path ?? '';
    if (path.startsWith('assets/')) {
      const file = assets.files.get(path.slice('assets/'.length));
      if (file === undefined) return problem(404, 'NOT_FOUND', `no console file ${path}`);
      return serve(request, file, 'public, max-age=31536000, immutable');
    }
    return serve(request, assets.index, 'no-store');
  };
}

function serve(request: HttpRequest, file: ConsoleFile, cacheControl: string): HttpResponseInit {
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'content-type': file.contentType,
    'cache-control': cacheControl,
    etag: file.etag,
    vary: 'accept-encoding',
  };
  if (request.headers.get('if-none-match') === file.etag) return { status: 304, headers };
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  if (gzip) headers['content-encoding'] = 'gzip';
  return { status: 200, headers, body: gzip ? file.gzip : file.body };
}
