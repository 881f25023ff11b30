// The version every host reports (CLI --version, snapshots).
export const PEERSCOPE_VERSION = '0.1.0';
