// The fuzz client: one raw TCP connection (node:net) per batch of rendered requests, written back
// to back (pipelined, sometimes split across several writes), its answers cut into responses by
// the strict parser and handed to the request each answers, in order.
import { connect } from 'node:net';
import type { Rendered } from './rendered.js';
import { headerValues, ResponseParser, ResponseSyntaxError, type ParsedResponse } from './response-parser.js';

export interface Answer {
  /** Interim 1xx responses (100 Continue) before the final one. */
  readonly interim: ParsedResponse[];
  /** Final responses: one, or two where the request's extra bytes formed another (bad) request. */
  readonly finals: ParsedResponse[];
}

export interface ConnectionOutcome {
  readonly answers: Answer[];
  /** A response that is not well-formed HTTP (a truncation is reported separately). */
  readonly syntaxError?: string;
  /** The connection closed inside a response (the response before it was cut short). */
  readonly truncated?: { readonly index: number; readonly message: string };
  /** The client gave up waiting (a request the port may wait on forever, or a stall). */
  readonly timedOut: boolean;
  readonly closedByPeer: boolean;
  /** Ms from the last answer to the port's close, for a connection that had to end. */
  readonly closeDelayMs?: number;
  readonly socketError?: string;
}

export interface ClientOptions {
  /** Splits the bytes into this many writes (1 = one write). */
  readonly writes?: number;
  /** How long to wait for anything more once only a request that may hang is left, ms. */
  readonly hangWaitMs?: number;
  /** How long to wait for the port to end a connection after the answer to its last request, ms. */
  readonly closeWaitMs?: number;
  /** Overall limit for the connection, ms. */
  readonly deadlineMs?: number;
}

export function runConnection(port: number, requests: readonly Rendered[], options: ClientOptions = {}): Promise<ConnectionOutcome> {
  return new Promise((resolve) => {
    const answers: Answer[] = requests.map(() => ({ interim: [], finals: [] }));
    const parser = new ResponseParser();
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let index = 0;
    let syntaxError: string | undefined;
    let truncated: ConnectionOutcome['truncated'];
    let timedOut = false;
    let closedByPeer = false;
    let socketError: string | undefined;
    let done = false;
    let hangTimer: NodeJS.Timeout | undefined;
    let lingerTimer: NodeJS.Timeout | undefined;
    let answeredAt: number | undefined;

    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(hangTimer);
      clearTimeout(lingerTimer);
      socket.destroy();
      resolve({
        answers,
        ...(syntaxError ? { syntaxError } : {}),
        ...(truncated ? { truncated } : {}),
        timedOut,
        closedByPeer,
        ...(socketError ? { socketError } : {}),
        ...(answeredAt !== undefined ? { closeDelayMs: performance.now() - answeredAt } : {}),
      });
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      finish();
    }, options.deadlineMs ?? 20_000);

    /** Parses whatever complete responses are buffered; returns false once parsing must stop. */
    const drain = (): boolean => {
      for (;;) {
        // Past the last request: anything more is a response to extra bytes (a second request).
        const req = requests[Math.min(index, requests.length - 1)] as Rendered;
        const extra = index >= requests.length;
        let r: ParsedResponse | undefined;
        try {
          r = parser.next(extra ? { head: false, upgrade: false } : { head: req.head, upgrade: req.upgrade });
        } catch (err) {
          if (err instanceof ResponseSyntaxError && err.truncated) truncated = { index, message: err.message };
          else syntaxError = `${(err as Error).message} (answering request ${index} of ${requests.length})`;
          return false;
        }
        if (!r) return true;
        if (index >= requests.length) {
          const last = answers[requests.length - 1] as Answer;
          if (!req.mayAnswerTwice || last.finals.length >= 2) {
            syntaxError = `an unexpected extra response ${r.status} after the last request`;
            return false;
          }
          last.finals.push(r);
          continue;
        }
        const a = answers[index] as Answer;
        if (r.interim) {
          a.interim.push(r);
          continue;
        }
        a.finals.push(r);
        index++;
        if (r.status === 101) return true;
      }
    };

    const settle = () => {
      if (done) return;
      const answered = index;
      if (answered >= requests.length) {
        const last = requests[requests.length - 1] as Rendered;
        // Everything answered. A connection that must end ends (a second response to a request's
        // extra bytes may come first); the port is given a while to end it.
        // A last answer that keeps the connection open (a HEAD's 503, HTTP/1.0 with keep-alive) ends it here.
        const lastAnswer = answers[requests.length - 1]?.finals.at(-1);
        const closing =
          lastAnswer !== undefined &&
          (lastAnswer.status === 101 || headerValues(lastAnswer, 'connection').join(',').toLowerCase().includes('close'));
        if ((!last.terminal || !closing) && !last.mayAnswerTwice) return finish();
        answeredAt ??= performance.now();
        lingerTimer ??= setTimeout(finish, options.closeWaitMs ?? 3_000);
        return;
      }
      // Only a request the port may wait on forever is left: do not wait for ever.
      const rest = requests.slice(answered);
      if (rest.every((r) => r.mayHang) && !hangTimer) hangTimer = setTimeout(finish, options.hangWaitMs ?? 100);
    };

    socket.on('data', (chunk: Buffer) => {
      parser.push(chunk);
      if (!drain()) return finish();
      settle();
    });
    socket.on('end', () => {
      closedByPeer = true;
      parser.end();
      drain();
      finish();
    });
    socket.on('close', () => {
      if (!done) {
        closedByPeer = true;
        parser.end();
        drain();
        finish();
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      socketError = err.code ?? err.message;
    });
    socket.on('connect', () => {
      const all = Buffer.concat(requests.map((r) => r.bytes));
      const writes = Math.max(1, Math.min(options.writes ?? 1, all.length));
      if (writes === 1) {
        socket.write(all);
      } else {
        // Split at arbitrary points (inside a request line, a header, a body): the port must not care.
        const step = Math.ceil(all.length / writes);
        let at = 0;
        const next = () => {
          if (done || at >= all.length) return;
          socket.write(all.subarray(at, at + step));
          at += step;
          setImmediate(next);
        };
        next();
      }
      settle();
    });
  });
}
