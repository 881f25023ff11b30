// The route table as the GVR matrix shows it: one column per server (health, release, discovery
// state), one row per GVR with the servers whose own discovery lists it, and the API registrations
// found missing. Answered live by getRouteTable and at a recorded moment by getStateAt.
import { z } from 'zod';
import { healthStateSchema } from './servers.js';

export const routeTableColumnSchema = z.object({
  name: z.string(),
  gitVersion: z.string().optional(),
  health: healthStateSchema,
  discovery: z.enum(['ok', 'stale', 'none']),
});
export type RouteTableColumn = z.infer<typeof routeTableColumnSchema>;

export const routeTableRowSchema = z.object({
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  /** Servers whose own discovery lists the GVR. */
  servers: z.array(z.string()),
});
export type RouteTableRow = z.infer<typeof routeTableRowSchema>;

/**
 * A group a server serves whose API registration (APIService) is gone: that server's own aggregated
 * discovery lists it, its legacy `/apis` does not (an older server removed it at its start-up, or it
 * was deleted by hand); the port's still does.
 */
export const missingRegistrationSchema = z.object({
  group: z.string(),
  versions: z.array(z.string()),
  /** Servers whose own discovery lists the group. */
  servedBy: z.array(z.string()),
  /** Servers whose legacy `/apis` does not list the group: what clients of legacy discovery straight to them miss. */
  missingFrom: z.array(z.string()).optional(),
  /** The server that probably removed the registration (the only one not serving the group), when it can be told. */
  removedBy: z.string().optional(),
  /** The finding in plain words. */
  message: z.string(),
});
export type MissingRegistration = z.infer<typeof missingRegistrationSchema>;

export const routeTableViewSchema = z.object({
  /** Changes whenever any server's discovery changes. */
  generation: z.number().int().nonnegative(),
  columns: z.array(routeTableColumnSchema),
  rows: z.array(routeTableRowSchema),
  skewedCount: z.number().int().nonnegative(),
  /** Groups served but missing from legacy discovery (their APIService gone); absent from hosts that predate it. */
  missingRegistrations: z.array(missingRegistrationSchema).optional(),
});
export type RouteTableView = z.infer<typeof routeTableViewSchema>;
