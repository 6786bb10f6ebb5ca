import { generate } from 'selfsigned';

/** A PEM key and self-signed certificate for `https://127.0.0.1`. */
export interface LoopbackCertificate {
  key: string;
  cert: string;
}

/**
 * Generates a fresh self-signed certificate for IP 127.0.0.1 (platform-notes.md: MSAL
 * refuses `http://` authorities). It is its own CA: clients trust it through `ca`,
 * never through process-wide settings. EC keys keep start-up fast.
 */
export async function generateLoopbackCertificate(): Promise<LoopbackCertificate> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 7 * 24 * 3600_000);
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
