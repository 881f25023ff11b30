// The project's own release catalog: what one Kubernetes release serves, in a compact form written
// by the importer (importer.ts) and read by the simulated apiservers. One file per release.
import { z } from 'zod';

export const CATALOG_FORMAT = 'peerscope.dev/release-catalog/v1';

const kindRef = z.object({
  /** Omitted when equal to the resource's own group/version. */
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string(),
});

export const catalogSubresourceSchema = z.object({
  name: z.string().min(1),
  /** Omitted when the subresource returns the parent's kind. */
  responseKind: kindRef.optional(),
  verbs: z.array(z.string()),
});

export const catalogResourceSchema = z.object({
  name: z.string().min(1),
  kind: z.string().min(1),
  singular: z.string(),
  namespaced: z.boolean(),
  verbs: z.array(z.string()),
  shortNames: z.array(z.string()).optional(),
  categories: z.array(z.string()).optional(),
  /** Set when the resource's responseKind lives in another group/version than the resource. */
  responseKind: kindRef.optional(),
  subresources: z.array(catalogSubresourceSchema).optional(),
});

export const catalogVersionSchema = z.object({
  version: z.string().min(1),
  resources: z.array(catalogResourceSchema),
});

export const catalogGroupSchema = z.object({
  /** "" is the core group, served under /api. */
  name: z.string(),
  /** In the order the release lists them; the first is the preferred version. */
  versions: z.array(catalogVersionSchema).min(1),
});

export const releaseCatalogSchema = z.object({
  format: z.literal(CATALOG_FORMAT),
  release: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a release name is letters, digits, ".", "_" and "-"'),
  /** What /version reports as gitVersion. */
  gitVersion: z.string(),
  major: z.string(),
  minor: z.string(),
  /** Where the importer read it from: file name and SHA-256 of each input, for provenance. */
  importedFrom: z.array(z.object({ file: z.string(), sha256: z.string() })),
  groups: z.array(catalogGroupSchema),
});

export type CatalogSubresource = z.infer<typeof catalogSubresourceSchema>;
export type CatalogResource = z.infer<typeof catalogResourceSchema>;
export type CatalogVersion = z.infer<typeof catalogVersionSchema>;
export type CatalogGroup = z.infer<typeof catalogGroupSchema>;
export type ReleaseCatalog = z.infer<typeof releaseCatalogSchema>;

/** A resource of a release together with where it lives. */
export interface CatalogEntry {
  readonly group: string;
  readonly version: string;
  readonly resource: CatalogResource;
}

/** Every GVR of a release, in catalog order. */
export function* catalogEntries(catalog: ReleaseCatalog): Generator<CatalogEntry> {
  for (const g of catalog.groups) {
    for (const v of g.versions) {
      for (const r of v.resources) yield { group: g.name, version: v.version, resource: r };
    }
  }
}
