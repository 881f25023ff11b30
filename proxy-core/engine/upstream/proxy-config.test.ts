// Which proxy carries the connections to an apiserver: client-go's rules (proxy-url wins; else
// HTTPS_PROXY / HTTP_PROXY with NO_PROXY, never for localhost or loopback), SOCKS refused clearly.
import { describe, expect, it } from 'vitest';
import { parseProxyUrl, proxyFor, redactProxy, redactUrlText, useProxy } from './proxy-config.js';

describe('proxy choice', () => {
  it('a kubeconfig proxy-url wins over the environment and NO_PROXY', () => {
    const env = { HTTPS_PROXY: 'http://env-proxy:3128', NO_PROXY: '*' };
    expect(proxyFor('https://10.0.0.1:6443', { proxyUrl: 'http://kc-proxy:8080', env })?.href).toBe('http://kc-proxy:8080/');
    // Even loopback goes through an explicit proxy-url, as http.ProxyURL does in client-go.
    expect(proxyFor('https://127.0.0.1:6443', { proxyUrl: 'http://kc-proxy:8080', env })?.host).toBe('kc-proxy:8080');
  });

  it('HTTPS_PROXY for https:// servers, HTTP_PROXY for http://, uppercase before lowercase; none set → direct', () => {
    const env = { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', http_proxy: 'plain:3' };
    expect(proxyFor('https://10.0.0.1:6443', { env })?.host).toBe('upper:1');
    expect(proxyFor('https://10.0.0.1:6443', { env: { https_proxy: 'http://lower:2' } })?.host).toBe('lower:2');
    // No scheme means http://, as Go reads it.
    expect(proxyFor('http://10.0.0.1:8080', { env })?.href).toBe('http://plain:3/');
    expect(proxyFor('https://10.0.0.1:6443', { env: {} })).toBeUndefined();
  });

  it('localhost and loopback addresses are never proxied from the environment', () => {
    const env = { HTTPS_PROXY: 'http://p:3128' };
    for (const url of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.3.2.1:1', 'https://[::1]:6443']) {
      expect(proxyFor(url, { env }), url).toBeUndefined();
    }
    expect(proxyFor('https://192.0.2.10:6443', { env })?.host).toBe('p:3128');
  });

  it('NO_PROXY: *, IPs, CIDRs, domains with their subdomains, leading dots and ports', () => {
    expect(useProxy('10.1.2.3', '6443', '*')).toBe(false);
    expect(useProxy('10.1.2.3', '6443', '10.1.2.3')).toBe(false);
    expect(useProxy('10.1.2.3', '6443', '10.0.0.0/8')).toBe(false);
    expect(useProxy('11.1.2.3', '6443', '10.0.0.0/8')).toBe(true);
    expect(useProxy('fd00::5', '6443', 'fd00::/64')).toBe(false);
    expect(useProxy('api.example.com', '6443', 'example.com')).toBe(false);
    expect(useProxy('example.com', '6443', 'example.com')).toBe(false);
    expect(useProxy('notexample.com', '6443', 'example.com')).toBe(true);
    expect(useProxy('example.com', '6443', '.example.com')).toBe(true);
    expect(useProxy('api.example.com', '6443', '*.example.com')).toBe(false);
    expect(useProxy('api.example.com', '6443', 'api.example.com:443')).toBe(true);
    expect(useProxy('api.example.com', '443', ' other.org , API.example.com:443 ')).toBe(false);
    expect(useProxy('api.example.com', '6443', '')).toBe(true);
  });

  it('SOCKS proxies and other schemes get a clear error; credentials never appear in it', () => {
    expect(() => parseProxyUrl('socks5://user:secret@p:1080', 'proxy-url')).toThrow(
      'proxy-url socks5://***@p:1080: SOCKS proxies are not supported by Peerscope; use an http:// or https:// (CONNECT) proxy',
    );
    expect(() => parseProxyUrl('ftp://p:2121', 'HTTPS_PROXY')).toThrow('HTTPS_PROXY ftp://p:2121: the scheme must be http:// or https://');
    expect(() => parseProxyUrl('http://user:secret@[bad', 'proxy-url')).toThrow('proxy-url "http://***@[bad" is not a URL');
  });

  it('redacts userinfo for display', () => {
    expect(redactProxy(new URL('http://alice:s3cret@proxy.corp:3128'))).toBe('http://***@proxy.corp:3128');
    expect(redactProxy(new URL('http://proxy.corp:3128'))).toBe('http://proxy.corp:3128');
    expect(redactUrlText('alice:s3cret@proxy:1')).toBe('***@proxy:1');
  });
});
