import { describe, expect, it } from 'vitest';
import { negotiateDiscovery, parseAccept } from './negotiate.js';
import { MEDIA } from './types.js';

const v2 = (encoding: 'json' | 'protobuf', profile?: string) => ({ kind: 'aggregated', version: 'v2', encoding, profile });
const LEGACY = { kind: 'legacy' };

describe('negotiateDiscovery (spec D1)', () => {
  it.each<[string, string | undefined, object]>([
    ['v2 JSON (C25)', MEDIA.v2Json, v2('json')],
    ['v2 JSON nopeer (C26)', MEDIA.v2JsonNoPeer, v2('json', 'nopeer')],
    ['v2 protobuf (C27)', MEDIA.v2Protobuf, v2('protobuf')],
    ['unknown profile (C28)', `${MEDIA.v2Json};profile=foo`, v2('json', 'foo')],
    ['v2beta1 only (C29)', MEDIA.v2beta1Json, { kind: 'aggregated', version: 'v2beta1', encoding: 'json', profile: undefined }],
    ['plain JSON (C30)', 'application/json', LEGACY],
    ['no header', undefined, LEGACY],
    ['empty header', '', LEGACY],
    ['protobuf without g/v/as', 'application/vnd.kubernetes.protobuf', LEGACY],
    ["kubectl's list", `${MEDIA.v2Protobuf}, ${MEDIA.v2Json}, application/json`, v2('protobuf')],
    ["client-go's no-peer list", `${MEDIA.v2JsonNoPeer}, ${MEDIA.v2Json}, application/json`, v2('json', 'nopeer')],
    ['q-values reorder', `${MEDIA.v2Protobuf};q=0.5, ${MEDIA.v2Json};q=0.9`, v2('json')],
    ['q=0 is not acceptable', `${MEDIA.v2Json};q=0, application/json`, LEGACY],
    ['more parameters win a q tie', `application/json, ${MEDIA.v2Json}`, v2('json')],
    ['a concrete type wins over */* at equal q', `*/*, ${MEDIA.v2Json}`, v2('json')],
    ['*/* with aggregated parameters is aggregated JSON', '*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', v2('json')],
    ['application/* with aggregated parameters', 'application/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', v2('json')],
    ['*/* alone', '*/*', LEGACY],
    [
      'unknown version is skipped',
      'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList, ' + MEDIA.v2Json + ';q=0.5',
      v2('json'),
    ],
    ['another conversion is not acceptable', 'application/json;g=apps;v=v1;as=Deployment', LEGACY],
    ['a partial conversion is not acceptable', 'application/json;v=v2', LEGACY],
    ['case and spaces in type and keys', ' Application/JSON ; G=apidiscovery.k8s.io ; V=v2 ; AS=APIGroupDiscoveryList ', v2('json')],
    [
      'quoted parameter values',
      'application/json;g="apidiscovery.k8s.io";v="v2";as="APIGroupDiscoveryList";profile="nopeer"',
      v2('json', 'nopeer'),
    ],
    ['unsupported type then v2', `text/html, ${MEDIA.v2Json};q=0.1`, v2('json')],
    ['aggregated YAML is left to H', 'application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', LEGACY],
  ])('%s', (_name, accept, expected) => {
    expect(negotiateDiscovery(accept)).toEqual(expected);
  });

  it('parseAccept keeps header order among equals and drops q=0', () => {
    expect(parseAccept('a/b, c/d;q=0, e/f;q=0.8, g/h').map((m) => `${m.type}/${m.subtype}`)).toEqual(['a/b', 'g/h', 'e/f']);
  });
});
