import { describe, expect, it, vi } from 'vitest';
import { isAllowedExternalUrl, openExternalSafely } from './external-links.js';

describe('openExternalSafely', () => {
  it.each([
    'https://kubernetes.io/docs/concepts/',
    'https://www.kubernetes.io/blog/',
    'https://github.com/kubernetes/enhancements/issues/4020',
    'https://github.com/Kubernetes/kubernetes',
  ])('opens the allow-listed documentation link %s', async (url) => {
    const openExternal = vi.fn(async () => undefined);
    await expect(openExternalSafely(url, openExternal)).resolves.toBe(true);
    expect(openExternal).toHaveBeenCalledWith(new URL(url).href);
  });

  it.each([
    'http://kubernetes.io/docs/',
    'https://kubernetes.io.evil.example/',
    'https://evilkubernetes.io/',
    'https://github.com/kubernetes-sigs/kind',
    'https://github.com/evil/kubernetes',
    'https://user:pw@kubernetes.io/',
    'https://kubernetes.io:8443/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'peerscope://app/',
    'smb://kubernetes.io/share',
    'not a url',
  ])('refuses %s', async (url) => {
    const openExternal = vi.fn(async () => undefined);
    await expect(openExternalSafely(url, openExternal)).resolves.toBe(false);
    expect(openExternal).not.toHaveBeenCalled();
    expect(isAllowedExternalUrl(url)).toBe(false);
  });
});
