// What the desktop app's controller is given (Electron's dialogs, clipboard and menu; the sessions it
// can start) and the sessions it holds. main.ts wires the real objects in; tests, fakes.
import type { MenuItemConstructorOptions } from 'electron';
import type { RoutingSnapshot } from '../../proxy-core/contract/index.js';
import type { SwitchableSession, SwitchingService } from '../../proxy-core/hosts/index.js';
import type { WebhookSetup, WebhookSetupRequest } from './audit-webhook-setup.js';

/** A running core the app can show: the simulated cluster or a real one. */
export interface AppSession extends SwitchableSession {
  /** The local port kubectl is pointed at. */
  readonly portUrl: string;
  close(): Promise<unknown>;
}

/** What a kubeconfig session reads of the cluster's own traffic (the cluster source), as the menu chose it. */
export interface ClusterSourceChoice {
  /** Each file with the server (identity) that wrote it. */
  readonly auditLogs?: readonly { readonly server: string; readonly file: string }[];
  /** False: the logs are read once, with progress; default: followed. */
  readonly auditFollow?: boolean;
  readonly auditWebhook?: WebhookSetup['options'];
}

/** The progress of a long read, for the window's progress bar: a fraction, or null when it has no size to measure. */
export type ReadProgress = { readonly fraction: number | null } | undefined;

/** The port the audit webhook receiver listens on. */
export const AUDIT_WEBHOOK_PORT = 9443;

export interface AppDialogs {
  /** The chosen file, or undefined when the operator cancelled. */
  openFile(options: { title: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  saveFile(options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  /** The chosen folder, or undefined when the operator cancelled. */
  chooseFolder(options: { title: string }): Promise<string | undefined>;
  /** The index of the chosen button; `cancelId` when the operator closed the box. */
  choose(options: { title: string; message: string; buttons: string[]; defaultId: number; cancelId: number }): Promise<number>;
  error(title: string, message: string): void;
  info(title: string, message: string): void;
}

export interface AppControllerDeps {
  readonly service: SwitchingService;
  readonly startDemo: () => Promise<AppSession>;
  /**
   * Loads the kubeconfig and finds the cluster's servers (errors here leave the running session alone);
   * the result starts the port, reading the cluster source chosen (audit logs, a webhook receiver).
   */
  readonly prepareCluster: (
    kubeconfig: string,
    context: string | undefined,
    source?: ClusterSourceChoice,
  ) => Promise<() => Promise<AppSession>>;
  /** Writes each server's webhook kubeconfig and token, and makes the receiver's settings (audit-webhook-setup.ts). */
  readonly prepareWebhook: (request: WebhookSetupRequest) => Promise<WebhookSetup>;
  /** Shows a long read's progress on the window (its taskbar or dock entry); undefined removes it. */
  readonly setProgress?: (progress: ReadProgress) => void;
  /** How often a read under way is asked how far it is (default 500 ms). */
  readonly progressIntervalMs?: number;
  readonly contextNames: (kubeconfig: string) => { names: string[]; current?: string };
  readonly readSnapshot: (file: string) => RoutingSnapshot;
  readonly writeSnapshot: (file: string, snapshot: RoutingSnapshot) => void;
  readonly dialogs: AppDialogs;
  readonly copyText: (text: string) => void;
  readonly setMenu: (template: MenuItemConstructorOptions[]) => void;
  readonly platform: NodeJS.Platform;
  readonly devTools: boolean;
}

/** More contexts than this are not offered as buttons; the current context is used, and the box says so. */
export const MAX_CONTEXT_BUTTONS = 8;

/** The kubeconfig cluster the app shows, and the cluster source chosen for it. */
export interface OpenedCluster {
  readonly kubeconfig: string;
  readonly context: string | undefined;
  readonly source: ClusterSourceChoice;
}
