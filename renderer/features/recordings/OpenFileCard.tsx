// A recording from elsewhere (a file a colleague sent): in the desktop app the main process's open
// dialog picks it; in browser mode the file's bytes are uploaded. Either way it is copied into the
// folder and opened; a file that is not a recording is refused, named with the fault.
import { useRef } from 'react';
import type { CoreClient, Recordings } from '../../../proxy-core/contract/index.js';
import { uploaderOf } from '../../shared/transport/http.js';

export function OpenFileCard({
  picker,
  client,
  act,
  busy,
}: {
  picker: Recordings['picker'];
  client: CoreClient;
  act: (what: string, action: () => Promise<Recordings>) => Promise<boolean>;
  busy: string | null;
}) {
  const input = useRef<HTMLInputElement>(null);
  const uploader = uploaderOf(client);
  const upload = (file: File | undefined) => {
    if (!file || !uploader) return;
    void act('import', () => uploader.uploadRecording(file, file.name));
    if (input.current) input.current.value = '';
  };
  return (
    <div className="card">
      <h3>Open a recording file</h3>
      <p className="muted small">
        A recording someone sent you: it is copied into the folder (the original is left as it was) and opened read-only.
      </p>
      {picker === 'dialog' || !uploader ? (
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy !== null}
          onClick={() => void act('import', () => client.chooseRecordingFile())}
        >
          Open a recording file…
        </button>
      ) : (
        <>
          <button type="button" className="btn btn-primary" disabled={busy !== null} onClick={() => input.current?.click()}>
            {busy === 'import' ? 'Importing…' : 'Open a recording file…'}
          </button>
          <input
            ref={input}
            type="file"
            accept=".sqlite,.recording.sqlite"
            className="sr-only"
            aria-label="Recording file to open"
            data-testid="recording-file"
            onChange={(e) => upload(e.target.files?.[0])}
          />
        </>
      )}
    </div>
  );
}
