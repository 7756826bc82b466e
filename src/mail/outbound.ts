// Outbound connections to addresses taken from settings (postback messengers, and the SMTP
// test's typed servers: allowedAddresses). An admin, or anyone who got settings:manage, must not
// turn them into a way to reach the server's own network: loopback,
// private, link-local and CGNAT addresses are refused unless `security.allow_private_outbound`
// is on, and cloud metadata, unspecified, multicast and reserved addresses always. The check is
// made on the address actually connected to (a custom lookup on the agent, so a name that
// re-resolves to 127.0.0.1 after it was checked is refused too), and redirects are never
// followed (a 3xx is a failure). Webhooks (src/webhooks/send.ts) go through the same guard under
// their own setting, security.webhooks_allow_private, resolving the name at each send.
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';

type Subnet = [address: string, prefix: number];

/** Never reachable from settings: instance metadata services, "this host", multicast, reserved. */
const ALWAYS_REFUSED: Subnet[] = [
  ['169.254.169.254', 32], ['100.100.100.200', 32], ['0.0.0.0', 8], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const ALWAYS_REFUSED_V6: Subnet[] = [['fd00:ec2::254', 128], ['::', 128], ['ff00::', 8]];
/** The host's own and its networks' addresses: refused unless the caller's setting allows them. */
const PRIVATE: Subnet[] = [
  ['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16], ['100.64.0.0', 10],
];
const PRIVATE_V6: Subnet[] = [['::1', 128], ['fc00::', 7], ['fe80::', 10]];

function blockList(v4: Subnet[], v6: Subnet[]): BlockList {
  const list = new BlockList();
  for (const [a, p] of v4) {
    list.addSubnet(a, p, 'ipv4');
    list.addSubnet(`::ffff:${a}`, 96 + p, 'ipv6'); // the same address written as IPv4-mapped IPv6
    // ...and through NAT64 (RFC 6052's well-known prefix), which reaches IPv4 private networks
    // from an IPv6-only host (AWS's NAT gateways translate it into the VPC).
    list.addSubnet(`64:ff9b::${a}`, 96 + p, 'ipv6');
  }
  for (const [a, p] of v6) list.addSubnet(a, p, 'ipv6');
  return list;
}

const alwaysRefused = blockList(ALWAYS_REFUSED, ALWAYS_REFUSED_V6);
const privateAddresses = blockList(PRIVATE, PRIVATE_V6);

/** The setting that lets postback messengers and SMTP tests reach private addresses. */
const ALLOW_PRIVATE_OUTBOUND = 'security.allow_private_outbound';

/** A host's name or literal address without the brackets of an IPv6 one in a URL. */
const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/** A host name's addresses; tests inject one that answers what they need. */
export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) => (await dnsPromises.lookup(hostname, { all: true })).map((a) => a.address);

/**
 * What else a check needs: the setting a refusal names, and the resolver of allowedAddresses
 * and GuardedClient.exchange (the system's by default; post's connections resolve in the agent).
 */
export interface CheckOptions {
  setting?: string;
  resolve?: Resolver;
}

/** Why an address may not be connected to, or null when it may; `setting` is the one that would allow a private address. */
export function refusedAddress(address: string, allowPrivate: boolean, setting = ALLOW_PRIVATE_OUTBOUND): string | null {
  const family = isIP(address);
  if (!family) return `"${address}" is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (alwaysRefused.check(address, type)) return `${address} is a metadata, unspecified or reserved address`;
  if (!allowPrivate && privateAddresses.check(address, type)) {
    return `${address} is a loopback, private or link-local address (${setting} is off)`;
  }
  return null;
}

export class OutboundRefused extends Error {}

/** The refusal of a name resolved to `addresses`: when any of them may not be connected to (or there is none). */
function refusal(hostname: string, addresses: string[], allowPrivate: boolean, setting?: string): OutboundRefused | null {
  const reason = addresses.map((a) => refusedAddress(a, allowPrivate, setting)).find((r) => r !== null);
  return reason || !addresses.length ? new OutboundRefused(`refused to connect to ${hostname}: ${reason ?? 'no address'}`) : null;
}

/**
 * The addresses a host name (or literal IP) resolves to, for a connection made to one of them
 * (not to the name, which could resolve elsewhere by then); OutboundRefused when one may not be
 * connected to, the resolver's error when the name does not resolve.
 */
export async function allowedAddresses(host: string, allowPrivate: boolean, o: CheckOptions = {}): Promise<string[]> {
  const name = bare(host);
  const addresses = isIP(name) ? [name] : await (o.resolve ?? systemResolver)(name);
  const refused = refusal(host, addresses, allowPrivate, o.setting);
  if (refused) throw refused;
  return addresses;
}

/** dns.lookup, refusing when any address the name resolves to is refused. */
function guardedLookup({ allowPrivate, setting }: CheckOptions & { allowPrivate: boolean }): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = refusal(hostname, addresses.map((a) => a.address), allowPrivate, setting);
      if (refused) return callback(refused, '', 0);
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface OutboundOptions extends CheckOptions {
  allowPrivate: boolean;
  maxSockets: number;
}

/** What came back: the status, and the part of the body that was kept. */
export interface Answer {
  status: number;
  body: string;
}

/** `promise`, or a rejection with the signal's reason when it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** A keep-alive connection pool for one URL's origin whose every connection goes through the guard. */
export class GuardedClient {
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;

  constructor(private readonly url: URL, private readonly o: OutboundOptions) {
    const agentOptions = { keepAlive: true, maxSockets: Math.max(1, o.maxSockets), lookup: guardedLookup(o) };
    this.agent = url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.request = url.protocol === 'https:' ? https.request : http.request;
  }

  /** POSTs the body to the client's URL, its name checked when connecting; resolves with the status (the response body is read and dropped). */
  async post(headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
    // A literal IP never goes through the lookup.
    const host = bare(this.url.hostname);
    const reason = isIP(host) ? refusedAddress(host, this.o.allowPrivate, this.o.setting) : null;
    if (reason) throw new OutboundRefused(`refused to connect to ${host}: ${reason}`);
    const answer = await this.send(urlToHttpOptions(this.url), headers, body, AbortSignal.timeout(timeoutMs));
    return answer.status;
  }

  /**
   * POSTs the body to `url` (of the client's origin, any path), its name resolved once, now:
   * refused when any of its addresses is, else connected to the first of those checked, so a
   * name that answers otherwise by the time of the connection cannot move it (TLS still
   * verifies the certificate for the name). Keeps at most `maxBody` bytes of the response body
   * and drops the connection when more comes. `signal` bounds it all, resolution included.
   */
  async exchange(url: URL, headers: Record<string, string>, body: string, o: { signal: AbortSignal; maxBody: number }): Promise<Answer> {
    const [address] = await untilAborted(allowedAddresses(url.hostname, this.o.allowPrivate, this.o), o.signal);
    const name = bare(url.hostname);
    return this.send({
      ...urlToHttpOptions(url),
      host: address,
      hostname: address,
      // SNI and the certificate's check are for the name (RFC 6066 allows no IP in SNI).
      servername: isIP(name) ? undefined : name,
    }, { host: url.host, ...headers }, body, o.signal, o.maxBody);
  }

  /** One POST; resolves with the status and the body's first `maxBody` bytes (without one, the body is read and dropped). */
  private send(target: https.RequestOptions, headers: Record<string, string>, body: string, signal: AbortSignal, maxBody?: number): Promise<Answer> {
    const options = { ...target, method: 'POST', agent: this.agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal };
    return new Promise((resolve, reject) => {
      const req = this.request(options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, maxBody).toString() });
        res.on('data', (chunk: Buffer) => {
          if (maxBody === undefined) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size > maxBody) {
            answer();
            res.destroy(); // the rest is not read: a receiver cannot make us download without end
          }
        });
        res.on('end', answer);
        res.on('error', reject);
        res.on('close', () => reject(new Error('the connection closed before the response ended')));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
