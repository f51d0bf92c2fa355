import { isIP } from 'node:net';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { withArticle } from '@mm/platform';
import { WebhookDispatcherConfig, allowsLoopbackReceivers } from '../webhook-dispatcher.config';
import { HOST_RESOLVER, type HostResolver, type ResolvedAddress } from './host-resolver';
import { type AddressCategory, classifyAddress } from './ip-ranges';
import { validateWebhookUrl } from './webhook-url';

/** How long a registration waits for DNS before accepting the URL unchecked (the send re-checks anyway). */
const REGISTRATION_DNS_TIMEOUT_MS = 2_000;

/** Where one attempt may connect: the address checked now, which the connection is pinned to. */
export type SendRoute =
  { ok: true; pinned: ResolvedAddress } | { ok: false; reason: string; code: 'WEBHOOK_DNS_FAILED' | 'WEBHOOK_ADDRESS_REFUSED' };

class DnsTimeout extends Error {
  override name = 'DnsTimeout';
  code = 'ETIMEOUT';
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DnsTimeout(`DNS lookup took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * SSRF guard of partner endpoint URLs. A URL is checked when it is registered (a stable 400 for the
 * partner) and again before every attempt, against a fresh resolution: a host whose DNS answer
 * changed since registration (DNS rebinding) is refused at send time. The attempt then connects to
 * the very address that was checked (the HTTP client's own lookup is replaced), so a second DNS
 * answer can never slip in between the check and the connection.
 */
@Injectable()
export class WebhookTargetPolicy {
  private readonly logger = new Logger(WebhookTargetPolicy.name);
  private readonly allowLoopback: boolean;
  private readonly requireHttps: boolean;

  constructor(
    config: WebhookDispatcherConfig,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
  ) {
    this.allowLoopback = allowsLoopbackReceivers(config);
    this.requireHttps = config.NODE_ENV === 'production' && !config.WEBHOOK_ALLOW_HTTP_URLS;
  }

  /** The normalised URL, or AppException INVALID_WEBHOOK_URL / WEBHOOK_URL_FORBIDDEN_ADDRESS. */
  async checkForRegistration(raw: string): Promise<string> {
    const url = validateWebhookUrl(raw, this.requireHttps);
    const host = bareHost(new URL(url).hostname);
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.addressesOf(host, REGISTRATION_DNS_TIMEOUT_MS);
    } catch (error) {
      // A name that does not resolve yet cannot be judged; every attempt checks it again before connecting.
      this.logger.warn({
        msg: 'webhook URL host did not resolve at registration; it is checked at each send',
        host,
        err: errorText(error),
      });
      return url;
    }
    const refused = this.firstRefused(addresses);
    if (refused) {
      // The partner learns the kind of address, never the address itself (no probing of internal DNS).
      throw new AppException('WEBHOOK_URL_FORBIDDEN_ADDRESS', `Webhook URL host resolves to ${withArticle(refused.category)} address`);
    }
    return url;
  }

  /** Re-checks a stored URL before an attempt: where to connect, or why not to. */
  async routeForSend(rawUrl: string, timeoutMs: number): Promise<SendRoute> {
    let url: URL;
    try {
      url = new URL(validateWebhookUrl(rawUrl, this.requireHttps));
    } catch (error) {
      return {
        ok: false,
        reason: `refused: ${error instanceof AppException ? error.message : 'invalid URL'}`,
        code: 'WEBHOOK_ADDRESS_REFUSED',
      };
    }
    const host = bareHost(url.hostname);
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.addressesOf(host, timeoutMs);
    } catch (error) {
      return { ok: false, reason: `dns: ${errorText(error)}`, code: 'WEBHOOK_DNS_FAILED' };
    }
    if (addresses.length === 0) return { ok: false, reason: 'dns: no address', code: 'WEBHOOK_DNS_FAILED' };
    const refused = this.firstRefused(addresses);
    if (refused) {
      this.logger.warn({ msg: 'webhook attempt refused: the endpoint host resolves to a forbidden address', host, ...refused });
      return { ok: false, reason: `refused: ${refused.category} address`, code: 'WEBHOOK_ADDRESS_REFUSED' };
    }
    return { ok: true, pinned: addresses[0] };
  }

  private async addressesOf(host: string, timeoutMs: number): Promise<ResolvedAddress[]> {
    const family = isIP(host);
    if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
    return withDeadline(this.resolve(host), timeoutMs);
  }

  /** A host is refused when any of its addresses is: mixing public and internal answers is a rebinding trick. */
  private firstRefused(addresses: ResolvedAddress[]): { address: string; category: AddressCategory } | undefined {
    for (const { address } of addresses) {
      const category = classifyAddress(address);
      if (category === undefined || (category === 'loopback' && this.allowLoopback)) continue;
      return { address, category };
    }
    return undefined;
  }
}

function errorText(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return String(typeof e?.code === 'string' ? e.code : (e?.message ?? error)).slice(0, 100);
}
