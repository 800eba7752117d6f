// Which Host headers the console answers. A browser sends the name it resolved, so a site whose DNS answer is
// switched to 127.0.0.1 after its page loaded (DNS rebinding) reaches the console as "its own origin" and could
// read every page; the Host header still carries the site's name, and is refused here. Answered:
//  - 127.0.0.1, localhost and [::1], with the console's port, always (any of them reaches a loopback console);
//  - the address given to --host, with the port; for a wildcard (0.0.0.0, ::) this machine's interface addresses
//    and host name, the names a browser on the network can use without DNS set up for the purpose;
//  - names given with --allow-host (a reverse proxy's public name), with any port or none.
// A request without a Host header (HTTP/1.0) is refused too: a browser always sends one.
import os from 'node:os';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** `host` as a Host header carries it: IPv6 in brackets, lower case. */
function hostForm(name: string): string {
  const n = name.trim().toLowerCase();
  return n.includes(':') && !n.startsWith('[') ? `[${n}]` : n;
}

/** Name and port of a Host header value; undefined when it is not of the form `name[:port]` or `[v6][:port]`. */
export function parseHostHeader(value: string): { name: string; port: number | undefined } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  return { name: m[1]!, port: m[2] === undefined ? undefined : Number(m[2]) };
}

export function hostChecker(o: {
  listen: string;
  port: number;
  allowHosts: readonly string[];
}): (header: string | undefined) => boolean {
  const withPort = new Set(LOOPBACK_NAMES);
  const listen = hostForm(o.listen);
  if (WILDCARDS.has(listen)) {
    for (const addrs of Object.values(os.networkInterfaces()))
      for (const a of addrs ?? []) withPort.add(hostForm(a.address.replace(/%.*$/, '')));
    withPort.add(hostForm(os.hostname()));
  } else {
    withPort.add(listen);
  }
  const anyPort = new Set(o.allowHosts.map(hostForm));
  return (header) => {
    if (header === undefined) return false;
    const h = parseHostHeader(header);
    if (!h) return false;
    if (anyPort.has(h.name)) return true;
    // No port in the header means the scheme's default, 80.
    return withPort.has(h.name) && (h.port ?? 80) === o.port;
  };
}
