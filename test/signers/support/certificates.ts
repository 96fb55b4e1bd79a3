// A throw-away certificate authority, a server certificate for 127.0.0.1 and client
// certificates, made with Debian's openssl in a temp dir, for the mTLS tests.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Debian's openssl, which makes the certificates; the mTLS tests skip, saying why, without it. */
export const opensslPath = Bun.which('openssl')

export type Pem = { cert: string; key: string }
export type TestCertificates = { dir: string; ca: Pem; server: Pem; client: Pem; otherClient: Pem; remove(): void }

function openssl(dir: string, args: string[]) {
  const run = Bun.spawnSync(['openssl', ...args], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  if (run.exitCode !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${run.stderr.toString()}`)
}

/** A CA, and certificates it signs: `server` (127.0.0.1), `client`; `otherClient` is signed by a CA of its own. */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-mtls-'))
  const read = (name: string): Pem => ({ cert: readFileSync(join(dir, `${name}.crt`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') })
  const selfSigned = (name: string) =>
    openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`])
  const signedBy = (ca: string, name: string, extensions: string) => {
    writeFileSync(join(dir, `${name}.ext`), extensions)
    openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`])
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`])
  }
  selfSigned('ca')
  selfSigned('otherca')
  signedBy('ca', 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n')
  signedBy('ca', 'client', 'extendedKeyUsage=clientAuth\n')
  signedBy('otherca', 'otherclient', 'extendedKeyUsage=clientAuth\n')
  return {
    dir,
    ca: read('ca'),
    server: read('server'),
    client: read('client'),
    otherClient: read('otherclient'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
