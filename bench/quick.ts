import { benchServers } from "./servers.js";
const rows = await benchServers({ targets: ["reference", "bare"], mixes: ["valid"], warmupSeconds: 2, roundSeconds: 3, rounds: 3, connections: 10 }, console.log);
for (const r of rows) console.log(r.target, r.mix, r.requestsPerSecond.toFixed(0), r.p50Ms, r.p99Ms, r.errors, r.non2xx, (r.rssAfterLoadBytes / 1e6).toFixed(0) + "MB");
