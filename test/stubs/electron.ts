// Stand-in for the `electron` module in Node tests: the real package would try to download its
// binary. Electron-facing code takes its collaborators injected, so nothing here needs behaviour.
export default {};
