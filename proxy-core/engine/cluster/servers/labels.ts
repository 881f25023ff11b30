// How the set names a server for people: its display name (host name, told apart across every listed
// server, gone ones too) and, for messages, the identity beside it. Made again after a change of the list.
import { serverLabel } from '../../../contract/servers.js';
import { displayNames } from '../display-names.js';
import type { ServerConfig } from '../server-config.js';

export class ServerLabels {
  /** serverLabel of each server, for messages. */
  private labels: Map<string, string> | undefined;
  private shown: Map<string, string> | undefined;

  /** `listed`: the config of every server in the set, in order. */
  constructor(private readonly listed: () => ServerConfig[]) {}

  /** The list changed: names are made again when next asked. */
  forget(): void {
    this.labels = undefined;
    this.shown = undefined;
  }

  /** `"cp-1" (apiserver-fa6m…)`: kept until the list changes, so the request path may ask per request. */
  label(name: string): string {
    if (!this.labels) {
      const shown = this.displayNames();
      this.labels = new Map([...shown].map(([id, display]) => [id, serverLabel(id, display)]));
    }
    return this.labels.get(name) ?? serverLabel(name);
  }

  /** The name a person reads for a server; kept until the list changes, for the route header. */
  shownName(name: string): string {
    return (this.shown ??= this.displayNames()).get(name) ?? name;
  }

  /** Identity → what a person reads, unique across every listed server, made now. */
  displayNames(): Map<string, string> {
    return displayNames(this.listed());
  }
}
