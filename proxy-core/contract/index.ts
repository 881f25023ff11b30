// The typed contract between the core and its hosts (renderer, Electron, CLI): plain serialisable
// types and the zod schemas that validate them at every boundary. Grows with the UI issue.
export const CONTRACT_VERSION = 1;
