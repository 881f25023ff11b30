// Hand-made stand-ins for the Electron objects the shell touches; they record what the shell did.
import type { WebContents } from 'electron';

type Listener = (...args: never[]) => unknown;

export class FakeWebContents {
  readonly listeners = new Map<string, Listener[]>();
  windowOpenHandler: Parameters<WebContents['setWindowOpenHandler']>[0] | undefined;
  readonly sent: { channel: string; args: unknown[] }[] = [];
  destroyed = false;

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  setWindowOpenHandler(handler: Parameters<WebContents['setWindowOpenHandler']>[0]): void {
    this.windowOpenHandler = handler;
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** Fires `event` like Chromium would; returns whether a listener called preventDefault(). */
  navigate(event: string, url: string): boolean {
    let prevented = false;
    const e = {
      url,
      preventDefault: () => {
        prevented = true;
      },
    };
    for (const l of this.listeners.get(event) ?? []) (l as (e: unknown, url: string) => void)(e, url);
    return prevented;
  }
  emit(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) (l as (...a: unknown[]) => void)(...args);
  }
}
