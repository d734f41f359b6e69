import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Agent, request } from "undici";
import { KIT_ROOT } from "../src/paths.js";
import { createRequest, median } from "./load.js";
import { BENCH_TOKEN, rssBytes } from "./targets.js";

// npm run soak [-- --seconds 60 --cap 200000 --connections 10]
// Sustained load on the reference server with one request in five invalid, until and past the store's
// cap; then a graceful shutdown in the middle of load. Prints the figures and exits 1 if a property
// fails: no errors, no 5xx, memory stable once the cap is reached, stored == acknowledged, and every
// request in flight at the signal answered.
const { values } = parseArgs({
  options: { seconds: { type: "string" }, cap: { type: "string" }, connections: { type: "string" } },
});
const seconds = Number(values.seconds ?? 60);
const cap = Number(values.cap ?? 200_000);
const connections = Number(values.connections ?? 10);
const BIN = join(KIT_ROOT, "dist", "src", "cli", "bin.js");
const failures: string[] = [];
const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;

function startServer(extra: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--port", "0", "--quiet", "--admin", "--token", BENCH_TOKEN, ...extra],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] as string });
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

// Phase 1: sustained load past the cap.
const { child, url } = await startServer(["--max-plants", String(cap)]);
const pid = child.pid as number;
const rssStart = rssBytes(pid);
let acknowledged = 0;
let full = 0;
let fiveHundreds = 0;
let rssAtCap: number | undefined;
const rssAfterCap: number[] = [];
const sampler = setInterval(() => {
  if (acknowledged >= cap) {
    rssAtCap ??= rssBytes(pid);
    rssAfterCap.push(rssBytes(pid));
  }
}, 1_000);
const result = await autocannon({
  url,
  connections,
  duration: seconds,
  requests: [
    createRequest(
      (n) => (n % 5 === 0 ? '{"id":"not a number","name":"x"}' : `{"id":${n},"name":"Soak ${n % 1000}","tag":"fern"}`),
      (status, body) => {
        if (status === 200) acknowledged++;
        else if (status >= 500) fiveHundreds++;
        else if (body.includes("PS_STORE_FULL")) full++;
      },
    ),
  ],
});
clearInterval(sampler);
const rssEnd = rssBytes(pid);
const listed = await fetch(`${url}/__admin/plants`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
const stored = (JSON.parse(await listed.text()) as { count: number }).count;
child.kill("SIGTERM");

const errors = result.errors + result.timeouts;
if (errors > 0) failures.push(`${errors} connection errors or timeouts`);
if (fiveHundreds > 0) failures.push(`${fiveHundreds} answers with a 5xx`);
if (stored !== acknowledged) failures.push(`stored ${stored} plants but acknowledged ${acknowledged} with 200`);
if (rssAtCap === undefined)
  failures.push(`the cap of ${cap} was not reached in ${seconds} s (raise --seconds or lower --cap)`);
else {
  // Stable: the heap breathes (young generation, GC headroom), so single samples swing; what must not
  // happen is a trend. The median of the last third of samples after the cap is compared with the
  // median of the first third.
  const third = Math.max(1, Math.floor(rssAfterCap.length / 3));
  const early = median(rssAfterCap.slice(0, third));
  const late = median(rssAfterCap.slice(-third));
  if (late > early * 1.25) failures.push(`RSS kept growing after the cap: median ${mb(early)} early, ${mb(late)} late`);
}

// Phase 2: a graceful shutdown in the middle of load. Every request sent well before the signal (so
// the server had it) must get its answer; answers are slow (--delay) so that many are in flight.
const second = await startServer(["--delay", "300"]);
const agent = new Agent({ connections: 50 });
let stop = false;
let id = 1e9;
const inFlightAtSignal: Promise<number | string>[] = [];
let signalAt = Number.POSITIVE_INFINITY;
const loops = Array.from({ length: 40 }, async () => {
  while (!stop) {
    const sentAt = performance.now();
    const p = request(`${second.url}/plants`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
      body: `{"id":${id++},"name":"In flight"}`,
    }).then(
      async (r) => (await r.body.text(), r.statusCode),
      (e: Error) => `error: ${(e as { code?: string }).code ?? e.message}`,
    );
    if (sentAt < signalAt - 50) inFlightAtSignal.push(p);
    const outcome = await p;
    if (typeof outcome === "string") return;
  }
});
await new Promise((r) => setTimeout(r, 1_000));
signalAt = performance.now();
second.child.kill("SIGTERM");
await new Promise((r) => second.child.once("exit", r));
stop = true;
await Promise.all(loops);
const outcomes = await Promise.all(inFlightAtSignal);
const unanswered = outcomes.filter((o) => o !== 200).length;
await agent.close();
if (unanswered > 0)
  failures.push(
    `${unanswered} of ${outcomes.length} requests sent before the signal got no 200 (${[...new Set(outcomes.filter((o) => o !== 200))].join(", ")})`,
  );

const lines = [
  `soak: ${seconds} s, ${connections} connections, one request in five invalid, store cap ${cap}`,
  `requests served: ${result.requests.total} (${result.requests.average.toFixed(0)} req/s); acknowledged creates (200): ${acknowledged}; refused as store full: ${full}`,
  `errors: ${errors}; 5xx: ${fiveHundreds}`,
  `RSS: ${mb(rssStart)} at start, ${rssAtCap === undefined ? "cap not reached" : mb(rssAtCap)} at the cap, ${mb(rssEnd)} at the end (after the cap, sampled each second: min ${rssAfterCap.length > 0 ? mb(Math.min(...rssAfterCap)) : "-"}, median ${rssAfterCap.length > 0 ? mb(median(rssAfterCap)) : "-"}, max ${rssAfterCap.length > 0 ? mb(Math.max(...rssAfterCap)) : "-"})`,
  `stored (admin surface): ${stored}; acknowledged: ${acknowledged}`,
  `graceful shutdown under load: ${outcomes.length} requests in flight at SIGTERM, ${outcomes.length - unanswered} answered 200`,
  failures.length === 0 ? "soak: PASS" : `soak: FAIL\n  ${failures.join("\n  ")}`,
];
process.stdout.write(lines.join("\n") + "\n");
process.exitCode = failures.length === 0 ? 0 : 1;
