// The app's view state as the Snapshots screen's parts read it: required here, and the library's
// state as a React store.
import { useSyncExternalStore } from 'react';
import { useView, type ViewState } from '../../shared/view-mode.js';
import type { LibraryState } from '../../shared/snapshot-library.js';

export function useRequiredView(): ViewState {
  const view = useView();
  if (!view) throw new Error('the Snapshots screen needs the app’s view state');
  return view;
}

export function useLibrary(view: ViewState): LibraryState {
  return useSyncExternalStore(view.library.subscribe, view.library.getState);
}
