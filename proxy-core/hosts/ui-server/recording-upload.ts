// A recording file uploaded from a browser-mode page (the Recordings screen's "Open a file…"): its raw
// bytes, streamed into the host's recordings folder, checked whole there (a file that is not a
// recording is refused naming the file the operator picked and the fault, and nothing is kept), then
// opened. Reached only after the token check; the body is never held in memory.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PeerscopeError } from '../../contract/errors.js';
import type { Recordings } from '../../contract/recordings.js';
import { sendError, sendFailure, sendJson } from './answers.js';

/** What the host's recordings folder does with an upload (session/recordings-library.ts). */
export interface RecordingImports {
  importBytes(body: AsyncIterable<Uint8Array>, shownAs: string): Promise<string>;
  openRecording(args: { name: string }): Promise<Recordings>;
  /** Uploads over this many bytes are refused (default 8 GiB). */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 8 * 1024 ** 3;

/** The request's bytes, failing once they pass `limit` (a Content-Length over it fails before any is read). */
async function* limited(req: IncomingMessage, limit: number): AsyncIterable<Uint8Array> {
  if (Number(req.headers['content-length']) > limit)
    throw new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', `the file exceeds ${limit} bytes`);
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', `the file exceeds ${limit} bytes`);
    yield chunk;
  }
}

export async function handleRecordingUpload(
  req: IncomingMessage,
  res: ServerResponse,
  imports: RecordingImports | undefined,
): Promise<void> {
  if (!imports) return sendError(res, 404, 'PEERSCOPE_ERR_NO_LIBRARY', 'this Peerscope keeps no recordings folder');
  if (!(req.headers['content-type'] ?? '').startsWith('application/octet-stream'))
    return sendError(res, 415, 'PEERSCOPE_ERR_INPUT', 'send the file as application/octet-stream');
  let shownAs: string;
  try {
    shownAs = decodeURIComponent(String(req.headers['x-peerscope-file-name'] ?? ''));
  } catch {
    shownAs = '';
  }
  // Only a name to show and to derive the stored name from: never a path that is opened.
  shownAs = shownAs.split(/[\\/]/).pop()?.slice(0, 255) || 'uploaded file';
  try {
    const name = await imports.importBytes(limited(req, imports.maxBytes ?? DEFAULT_MAX_BYTES), shownAs);
    sendJson(res, 200, await imports.openRecording({ name }));
  } catch (err) {
    if ((err as PeerscopeError).code === 'PEERSCOPE_ERR_BODY_TOO_LARGE') req.resume();
    sendFailure(res, err, 'the recording upload');
  }
}
