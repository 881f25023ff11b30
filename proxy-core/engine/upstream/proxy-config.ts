// Which proxy, if any, carries the connections to one apiserver — client-go's rules: a cluster's
// `proxy-url` is used for every connection of that cluster; without it the environment decides, as
// Go's http.ProxyFromEnvironment does (HTTPS_PROXY / https_proxy for https:// servers, HTTP_PROXY /
// http_proxy for http://, NO_PROXY / no_proxy exempting hosts; never for localhost or a loopback IP).
// Proxies are reached with HTTP CONNECT (http:// or https:// proxy URLs); SOCKS is refused clearly.
import { isIP } from 'node:net';
import { PeerscopeError } from '../../contract/errors.js';

export class ProxyConfigError extends PeerscopeError {
  override readonly name = 'ProxyConfigError';
  constructor(message: string) {
    super('PEERSCOPE_ERR_PROXY_CONFIG', message);
  }
}

/**
 * A proxy URL parsed and checked. `where` names the setting for the error ("proxy-url", "HTTPS_PROXY").
 * Like Go, a value without a scheme means http://.
 */
export function parseProxyUrl(value: string, where: string): URL {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyConfigError(`${where} "${redactUrlText(value)}" is not a URL`);
  }
  if (url.protocol === 'socks5:' || url.protocol === 'socks5h:' || url.protocol === 'socks4:' || url.protocol === 'socks:') {
    throw new ProxyConfigError(
      `${where} ${redactProxy(url)}: SOCKS proxies are not supported by Peerscope; use an http:// or https:// (CONNECT) proxy`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProxyConfigError(`${where} ${redactProxy(url)}: the scheme must be http:// or https://`);
  }
  if (!url.hostname) throw new ProxyConfigError(`${where} "${redactUrlText(value)}" names no host`);
  return url;
}

/** The proxy URL as it may be shown: user and password replaced by "***". */
export function redactProxy(url: URL): string {
  const shown = new URL(url.href);
  const had = shown.username !== '' || shown.password !== '';
  shown.username = '';
  shown.password = '';
  const text = shown.href.replace(/\/$/, '');
  return had ? text.replace('://', '://***@') : text;
}

/** Redacts userinfo in a string that may not even parse. */
export function redactUrlText(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}***@`);
}

export interface ProxyChoice {
  /** The kubeconfig cluster's proxy-url, if any: it wins over the environment. */
  readonly proxyUrl?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** The proxy for connections to `target` (an apiserver base URL), or undefined for a direct connection. */
export function proxyFor(target: string, choice: ProxyChoice): URL | undefined {
  if (choice.proxyUrl) return parseProxyUrl(choice.proxyUrl, 'proxy-url');
  const env = choice.env ?? process.env;
  const url = new URL(target);
  const name = url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const value = firstSet(env, name, name.toLowerCase());
  if (!value) return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (!useProxy(url.hostname, port, firstSet(env, 'NO_PROXY', 'no_proxy') ?? '')) return undefined;
  return parseProxyUrl(value, env[name] ? name : name.toLowerCase());
}

function firstSet(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n];
    if (v) return v;
  }
  return undefined;
}

/**
 * Go's httpproxy rules: localhost and loopback IPs are never proxied; NO_PROXY is a comma list of
 * "*", IPs, CIDRs, and host names with an optional port ("example.com" also matches its subdomains,
 * ".example.com" and "*.example.com" only the subdomains).
 */
export function useProxy(hostname: string, port: string, noProxy: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return false;
  const ip = isIP(host) ? host : undefined;
  if (ip && isLoopback(ip)) return false;
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return false;
    if (entry.includes('/')) {
      if (ip && inCidr(ip, entry)) return false;
      continue;
    }
    let entryPort = '';
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1] as string;
      entryPort = bracketed[2] ?? '';
    } else if (!isIP(entry)) {
      const m = /^(.*):(\d+)$/.exec(entry);
      if (m) {
        entry = m[1] as string;
        entryPort = m[2] as string;
      }
    }
    if (entryPort && entryPort !== port) continue;
    if (isIP(entry)) {
      if (ip && normaliseIp(entry) === normaliseIp(ip)) return false;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry)) return false;
      continue;
    }
    if (host === entry || host.endsWith(`.${entry}`)) return false;
  }
  return true;
}

function isLoopback(ip: string): boolean {
  if (isIP(ip) === 4) return ip.startsWith('127.');
  const n = normaliseIp(ip);
  return n === '0:0:0:0:0:0:0:1' || /^0:0:0:0:0:ffff:7f/.test(n);
}

/** IPv6 written out in full (eight groups, no leading zeros); IPv4 unchanged. */
function normaliseIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  return ipv6Groups(ip)
    .map((g) => g.toString(16))
    .join(':');
}

function ipv6Groups(ip: string): number[] {
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = (v4[1] as string).split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -(v4[1] as string).length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

function inCidr(ip: string, cidr: string): boolean {
  const [base = '', bitsText = ''] = cidr.split('/');
  const bits = Number(bitsText);
  const family = isIP(base);
  if (!family || family !== isIP(ip) || !Number.isInteger(bits)) return false;
  const toBits = (addr: string): string =>
    family === 4
      ? addr
          .split('.')
          .map((o) => Number(o).toString(2).padStart(8, '0'))
          .join('')
      : ipv6Groups(addr)
          .map((g) => g.toString(2).padStart(16, '0'))
          .join('');
  return toBits(ip).slice(0, bits) === toBits(base).slice(0, bits);
}
