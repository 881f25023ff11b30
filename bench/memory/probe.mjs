// Loaded into a proxy with `node --import`: writes the process's memory split every 500 ms to the file
// named by PEERSCOPE_MEMPROBE (V8 heap and its young generation, external memory, and the rest of RSS).
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const out = process.env.PEERSCOPE_MEMPROBE;
if (out) {
  setInterval(() => {
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    writeFileSync(out, JSON.stringify({ ...process.memoryUsage(), spaces }));
  }, 500).unref();
}
