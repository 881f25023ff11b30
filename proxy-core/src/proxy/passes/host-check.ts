// DNS-rebinding guard (spec P4): the Host header must name the listener itself — localhost,
// 127.0.0.1 or [::1], with or without the listener's port — or a host the operator accepted.
import { failure, type Status } from '../../util/status.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export type HostCheck = { readonly ok: true } | { readonly ok: false; readonly status: Status };

export function checkHost(host: string | undefined, listener: { readonly port: number }, acceptHosts: readonly string[]): HostCheck {
  // A request without Host cannot prove which name it was sent to: refused like a foreign one.
  if (host === undefined || host === '') return refuse('');
  const value = host.toLowerCase();
  const { name, port } = splitHost(value);
  const portOk = port === undefined || port === String(listener.port);
  if (portOk && LOOPBACK_NAMES.has(name)) return { ok: true };
  if (acceptHosts.some((h) => h.toLowerCase() === value || (portOk && h.toLowerCase() === name))) return { ok: true };
  return refuse(host);
}

function refuse(host: string): HostCheck {
  return { ok: false, status: failure(403, 'Forbidden', `Host header "${host}" is not allowed`) };
}

function splitHost(host: string): { name: string; port: string | undefined } {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return { name: host, port: undefined };
    const rest = host.slice(end + 1);
    return { name: host.slice(0, end + 1), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 ? { name: host, port: undefined } : { name: host.slice(0, colon), port: host.slice(colon + 1) };
}
