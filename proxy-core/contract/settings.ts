// The port's discovery mode, defined once for the engine, its hosts and the snapshot format.
import { z } from 'zod';

/**
 * `peer-aggregated`: `GET /apis` with the aggregated Accept header answers one document merged across
 * every server. `nopeer`: the handling server's own document (as `profile=nopeer` asks per request).
 */
export const discoveryModes = ['peer-aggregated', 'nopeer'] as const;
export const discoveryModeSchema = z.enum(discoveryModes);
export type DiscoveryMode = z.infer<typeof discoveryModeSchema>;
