import { describe, expect, it } from 'vitest';
import { versionOrderDifferences } from './discovery-view.js';

describe('versionOrderDifferences', () => {
  it("names a group whose merged list does not start with the server's own; versions only appended are no difference", () => {
    const merged = { 'scheduling.k8s.io': ['v1', 'v1beta1', 'v1alpha3', 'v1alpha1'], apps: ['v1'], 'x.io': ['v2', 'v1'] };
    const own = { 'scheduling.k8s.io': ['v1', 'v1alpha1'], apps: ['v1'], 'x.io': ['v2'], 'gone.io': ['v1'] };
    expect(versionOrderDifferences(own, merged)).toEqual([
      { group: 'scheduling.k8s.io', own: ['v1', 'v1alpha1'], merged: ['v1', 'v1beta1', 'v1alpha3', 'v1alpha1'] },
    ]);
    expect(versionOrderDifferences(undefined, merged)).toEqual([]);
  });
});
