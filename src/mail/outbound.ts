// Outbound connections to addresses taken from settings (postback messengers, and the SMTP
// test's typed servers: allowedAddresses). An admin, or anyone who got settings:manage, must not
// turn them into a way to reach the server's own network: loopback,
// private, link-local and CGNAT addresses are refused unless `security.allow_private_outbound`
// is on, and cloud metadata, unspecified, multicast and reserved addresses always. The check is
// made on the address actually connected to (a custom lookup on the agent, so a name that
// re-resolves to 127.0.0.1 after it was checked is refused too), and redirects are never
// followed (a 3xx is a failure).
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

type Subnet = [address: string, prefix: number];

/** Never reachable from settings: instance metadata services, "this host", multicast, reserved. */
const ALWAYS_REFUSED: Subnet[] = [
  ['169.254.169.254', 32], ['100.100.100.200', 32], ['0.0.0.0', 8], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const ALWAYS_REFUSED_V6: Subnet[] = [['fd00:ec2::254', 128], ['::', 128], ['ff00::', 8]];
/** The host's own and its networks' addresses: refused unless security.allow_private_outbound. */
const PRIVATE: Subnet[] = [
  ['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16], ['100.64.0.0', 10],
];
const PRIVATE_V6: Subnet[] = [['::1', 128], ['fc00::', 7], ['fe80::', 10]];

function blockList(v4: Subnet[], v6: Subnet[]): BlockList {
  const list = new BlockList();
  for (const [a, p] of v4) {
    list.addSubnet(a, p, 'ipv4');
    list.addSubnet(`::ffff:${a}`, 96 + p, 'ipv6'); // the same address written as IPv4-mapped IPv6
  }
  for (const [a, p] of v6) list.addSubnet(a, p, 'ipv6');
  return list;
}

const alwaysRefused = blockList(ALWAYS_REFUSED, ALWAYS_REFUSED_V6);
const privateAddresses = blockList(PRIVATE, PRIVATE_V6);

/** Why an address may not be connected to, or null when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  const family = isIP(address);
  if (!family) return `"${address}" is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (alwaysRefused.check(address, type)) return `${address} is a metadata, unspecified or reserved address`;
  if (!allowPrivate && privateAddresses.check(address, type)) {
    return `${address} is a loopback, private or link-local address (security.allow_private_outbound is off)`;
  }
  return null;
}

export class OutboundRefused extends Error {}

/** The refusal of a name resolved to `addresses`: when any of them may not be connected to (or there is none). */
function refusal(hostname: string, addresses: string[], allowPrivate: boolean): OutboundRefused | null {
  const reason = addresses.map((a) => refusedAddress(a, allowPrivate)).find((r) => r !== null);
  return reason || !addresses.length ? new OutboundRefused(`refused to connect to ${hostname}: ${reason ?? 'no address'}`) : null;
}

/**
 * The addresses a host name (or literal IP) resolves to, for a connection made to one of them
 * (not to the name, which could resolve elsewhere by then); OutboundRefused when one may not be
 * connected to, the resolver's error when the name does not resolve.
 */
export async function allowedAddresses(host: string, allowPrivate: boolean): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare) ? [bare] : (await dnsPromises.lookup(bare, { all: true })).map((a) => a.address);
  const refused = refusal(host, addresses, allowPrivate);
  if (refused) throw refused;
  return addresses;
}

/** dns.lookup, refusing when any address the name resolves to is refused. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = refusal(hostname, addresses.map((a) => a.address), allowPrivate);
      if (refused) return callback(refused, '', 0);
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface OutboundOptions {
  allowPrivate: boolean;
  maxSockets: number;
}

/** A keep-alive connection pool for one URL's scheme whose every connection goes through the guard. */
export class GuardedClient {
  private readonly agent: http.Agent;

  constructor(private readonly url: URL, private readonly o: OutboundOptions) {
    const agentOptions = { keepAlive: true, maxSockets: Math.max(1, o.maxSockets), lookup: guardedLookup(o.allowPrivate) };
    this.agent = url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** POSTs the body; resolves with the status (the response body is read and dropped). */
  post(headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
    // A literal IP never goes through the lookup.
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    const reason = isIP(host) ? refusedAddress(host, this.o.allowPrivate) : null;
    if (reason) return Promise.reject(new OutboundRefused(`refused to connect to ${host}: ${reason}`));
    const request = this.url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = request(this.url, { method: 'POST', agent: this.agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
