// Every failure Peerscope names carries a stable code from contract/errors.ts, thrown from the real
// entry points a user meets (files, flags, settings), and crosses a wire as { code, message } only.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes, isPeerscopeError, PeerscopeError, toCallError } from '../contract/errors.js';
import { loadKubeconfig } from '../engine/cluster/kubeconfig.js';
import { parsePolicy } from '../engine/proxy/policy.js';
import { readSnapshotFile } from '../engine/snapshot/io.js';
import { parseProxyUrl } from '../engine/upstream/proxy-config.js';
import { parseLabelSelector } from '../sim/store/selectors.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const dir = mkdtempSync(join(tmpdir(), 'peerscope-codes-'));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('error codes', () => {
  it.each([
    [
      'a kubeconfig naming an undefined context',
      () => loadKubeconfig({ kubeconfig: write('config', 'apiVersion: v1\nkind: Config\ncurrent-context: gone\n') }),
      'PEERSCOPE_ERR_KUBECONFIG',
      /context "gone" is not defined/,
    ],
    [
      'a policy that is none of the three',
      () => parsePolicy('sideways'),
      'PEERSCOPE_ERR_POLICY',
      /is not one of round-robin, random, pin:NAME/,
    ],
    [
      'a snapshot file that is not JSON',
      () => readSnapshotFile(write('cut.json', '{"apiVersion": ')),
      'PEERSCOPE_ERR_INPUT',
      /cut\.json:1:\d+: not valid JSON/,
    ],
    [
      'a proxy URL of an unknown scheme',
      () => parseProxyUrl('ftp://proxy.example', 'HTTPS_PROXY'),
      'PEERSCOPE_ERR_PROXY_CONFIG',
      /HTTPS_PROXY/,
    ],
    ['a malformed label selector', () => parseLabelSelector('a in (b'), 'PEERSCOPE_ERR_SIM_SELECTOR', /./],
  ])('%s', (_what, run, code, message) => {
    const error = thrown(run);
    expect(isPeerscopeError(error)).toBe(true);
    expect(error).toBeInstanceOf(PeerscopeError);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(toCallError(error, 'call')).toEqual({ code, message: (error as Error).message });
  });

  it('every code is PEERSCOPE_ERR_ and described', () => {
    for (const [code, meaning] of Object.entries(errorCodes)) {
      expect(code).toMatch(/^PEERSCOPE_ERR_[A-Z_]+$/);
      expect(meaning.length).toBeGreaterThan(10);
    }
  });

  it('sends only the code of an error Peerscope did not write', () => {
    const wire = toCallError(new Error('GET https://user:secret@10.0.0.1 failed'), 'getOverview');
    expect(wire).toEqual({ code: 'PEERSCOPE_ERR_INTERNAL', message: 'getOverview failed inside the core (its log has the details)' });
  });
});
