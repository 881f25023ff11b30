// Open snapshot files from the picker or by drag-and-drop; each is read whole by the core first.
import { useRef, useState, type DragEvent } from 'react';
import { ImportError } from './ImportError.js';
import { useLibrary, useRequiredView } from './view.js';
import { importSnapshotFiles } from './workflows.js';

export function ImportCard() {
  const view = useRequiredView();
  const { importing } = useLibrary(view);
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const importFiles = async (files: File[]) => {
    if (files.length === 0 || importing.busy) return;
    await importSnapshotFiles(view, files);
  };

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setDragging(false);
    void importFiles([...e.dataTransfer.files]);
  };

  return (
    <div className="card">
      <h3>Open snapshot files</h3>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        onDragEnter={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        data-testid="snapshot-dropzone"
      >
        <p>Drop snapshot files here, or</p>
        <button type="button" className="btn btn-primary" onClick={() => input.current?.click()} disabled={Boolean(importing.busy)}>
          Choose snapshot files…
        </button>
        <input
          ref={input}
          type="file"
          accept=".json,application/json"
          multiple
          hidden
          aria-label="Snapshot files to open"
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = '';
            void importFiles(files);
          }}
        />
        <p className="muted small">A file is checked whole before anything is shown. Opening one shows it offline in every screen.</p>
      </div>
      {importing.busy && (
        <div className="state state-loading" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> {importing.busy}
        </div>
      )}
      {importing.failures.map((f, i) => (
        <ImportError key={`${f.file}-${i}`} failure={f} />
      ))}
    </div>
  );
}
