/** The http URL of a server bound to `host:port` (IPv6 hosts in brackets). */
export function listenUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}
