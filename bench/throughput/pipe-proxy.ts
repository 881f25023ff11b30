// The least any Node process can do to relay a watch: the client's request head is read, the bearer
// token added, and from then on bytes are copied both ways between the client's TCP socket and a TLS
// socket to the upstream — no HTTP parsing of the answer at all (its chunked framing passes through
// as it came). The chunks of one event-loop turn leave in one corked write, as in Peerscope's relay,
// and it runs with what the port runs with: its heap settings and a client connection holding 1 MiB
// (with Node's defaults it took 90–110 ms of CPU per watch, with these 50–70, as the port does). It
// is a yardstick for the watch figure, not a proxy: one request per connection, no checks.
//
// `node pipe-proxy.mjs UPSTREAM_URL CA_FILE TOKEN`; prints `Starting to serve on 127.0.0.1:PORT`.
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { connect } from 'node:tls';
import { fixHeapGrowth } from '../../proxy-core/engine/util/heap-growth.js';
import { serveYardstick } from './yardstick-upstream.js';

fixHeapGrowth(process.env);

const [upstream, caFile, token] = process.argv.slice(2) as [string, string, string];
const target = new URL(upstream);
const ca = readFileSync(caFile, 'utf8');
const authorization = Buffer.from(`Authorization: Bearer ${token}\r\n`, 'latin1');
const MAX_HEAD = 64 * 1024;

/** Copies `from` into `to`, a turn's chunks in one write, pausing `from` while `to` is full. */
function copy(from: Socket, to: Socket): void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    to.uncork();
  };
  from.on('data', (chunk: Buffer) => {
    if (!corked) {
      corked = true;
      to.cork();
      setImmediate(uncork);
    }
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
  from.on('end', () => to.end());
}

// proxy/listener.ts's CLIENT_BUFFER_BYTES, not imported: its module would bring the port's request path into this process.
const server = createServer({ highWaterMark: 1024 * 1024 }, (client) => {
  let head = Buffer.alloc(0);
  const onHead = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_HEAD) client.destroy();
      return;
    }
    client.off('data', onHead);
    client.pause();
    const lineEnd = head.indexOf('\r\n') + 2;
    const up = connect({ host: target.hostname, port: Number(target.port), ca }, () => {
      up.write(Buffer.concat([head.subarray(0, lineEnd), authorization, head.subarray(lineEnd)]));
      copy(client, up);
      copy(up, client);
      client.resume();
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
    client.on('close', () => up.destroy());
  };
  client.on('data', onHead);
});
serveYardstick(server);
