/** What a proxy's 404 carries: an HTML error page, or nothing at all. */
export type ProxyNotFoundBody = 'html' | 'empty';

/** The page a reverse proxy (nginx here) sends for a path it has no route for. */
export const PROXY_NOT_FOUND_PAGE =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/**
 * Paths a proxy or gateway in front of the target answers 404 itself, before the target sees
 * the request (a route missing from the gateway, a wrong base URL): an HTML page or an empty
 * body, never the target's own error body. A client that takes any 404 for "no such object"
 * believes the proxy.
 */
export class ProxyNotFound {
  private readonly paths = new Map<string, ProxyNotFoundBody>();

  /** Every request whose path (without query) ends with `pathEnd` is answered by the proxy. */
  answer(pathEnd: string, body: ProxyNotFoundBody): void {
    this.paths.set(pathEnd, body);
  }

  clear(): void {
    this.paths.clear();
  }

  /** The proxy's answer for this path, undefined when the request reaches the target. */
  match(path: string): ProxyNotFoundBody | undefined {
    for (const [pathEnd, body] of this.paths) if (path.endsWith(pathEnd)) return body;
    return undefined;
  }
}
