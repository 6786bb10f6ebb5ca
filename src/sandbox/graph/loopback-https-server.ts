import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphReply } from './graph-error.js';
import type { LoopbackCertificate } from './loopback-certificate.js';

/** A request as the sandbox's dispatcher sees it: the body already read. */
export interface LoopbackRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A reply, or (`resetConnection`) no reply at all: the socket is destroyed, as by a reset. */
export interface LoopbackReply extends GraphReply {
  resetConnection?: boolean;
  /** A body sent as it is, not as JSON (a proxy's HTML page), with the headers' content type. */
  text?: string;
}

export interface LoopbackHttpsServer {
  port: number;
  /** Bytes of every answer body sent since the start. */
  readonly bytesServed: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * An HTTPS server on 127.0.0.1 with an ephemeral port. `close` also ends keep-alive
 * connections, so tests do not wait for idle clients.
 */
export async function startLoopbackHttpsServer(
  certificate: LoopbackCertificate,
  handle: (request: LoopbackRequest) => Promise<LoopbackReply>,
): Promise<LoopbackHttpsServer> {
  let bytesServed = 0;
  const server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    void serve(req, res, handle).then((bytes) => {
      bytesServed += bytes;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get bytesServed() {
      return bytesServed;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  handle: (request: LoopbackRequest) => Promise<LoopbackReply>,
): Promise<number> {
  let reply: LoopbackReply;
  try {
    const body = await readBody(req);
    reply =
      body === undefined
        ? {
            status: 413,
            body: { error: { code: 'RequestEntityTooLarge', message: 'Request body too large.' } },
          }
        : await handle({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            headers: req.headers,
            body,
          });
  } catch {
    reply = {
      status: 500,
      body: { error: { code: 'generalException', message: 'The sandbox failed on this request.' } },
    };
  }
  if (res.destroyed) return 0;
  if (reply.resetConnection === true) {
    res.destroy();
    return 0;
  }
  const headers: Record<string, string> = { ...reply.headers };
  if ((reply.body === undefined && reply.text === undefined) || reply.status === 204) {
    res.writeHead(reply.status, headers).end();
    return 0;
  }
  const text = reply.text ?? JSON.stringify(reply.body);
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  const bytes = Buffer.byteLength(text);
  headers['Content-Length'] = String(bytes);
  res.writeHead(reply.status, headers).end(text);
  return bytes;
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}
