import type { LoggingCost } from "./logging-cost.js";
import type { MemoryResult } from "./memory.js";
import type { BenchResult, ServersResult } from "./result.js";
import type { StartupResult } from "./serve-startup.js";
import type { Ratio } from "./servers.js";

// The printed report of npm run bench: Markdown tables, one part per section that ran.

const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : "-");
const spread = (r: Ratio | undefined): string =>
  r === undefined ? "-" : `${fmt(r.median, 2)} (${fmt(r.min, 2)} to ${fmt(r.max, 2)})`;

/** The report's lines. */
export function report(r: BenchResult): string[] {
  const lines = [
    ``,
    `Machine: ${r.machine.cores} x ${r.machine.cpus}, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}; load average ${r.machine.load.before.join(" ")} before, ${r.machine.load.after.join(" ")} after`,
  ];
  if (r.servers) lines.push(``, `Plant Store spec (spec/openapi.yaml), against bare node:http:`, ...servers(r.servers));
  if (r.logging) lines.push(``, ...logging(r.logging));
  if (r.reads)
    lines.push(
      ``,
      `Read-heavy mix on ${r.reads.spec} (${r.reads.seeded} plants seeded; 80% reads, 10% lists, 10% creates), against a bare node:http store:`,
      ...servers(r.reads),
    );
  if (r.startup) lines.push(``, ...startup(r.startup));
  for (const m of r.memory ?? []) lines.push(``, ...memory(m));
  if (r.harness) lines.push(``, ...harness(r.harness));
  if (r.proxy) lines.push(``, ...proxy(r.proxy));
  return lines;
}

function servers(s: ServersResult): string[] {
  return [
    `| target | mix | req/s | over the baseline, median (min to max) | over Prism | CPU us an answer | CPU: the baseline's over its own | p50 ms | p99 ms | errors | non-2xx | RSS after load MB | start-up ms |`,
    `|---|---|---|---|---|---|---|---|---|---|---|---|---|`,
    ...s.rows.map(
      (x) =>
        `| ${x.target} | ${x.mix} | ${fmt(x.requestsPerSecond)} | ${spread(x.overBaseline)} | ${spread(s.versusPrism[`${x.target} ${x.mix}`])} | ${fmt(x.cpuUsPerRequest)} | ${spread(x.cpuOverBaseline)} | ${fmt(x.p50Ms, 1)} | ${fmt(x.p99Ms, 1)} | ${x.errors} | ${x.non2xx} | ${fmt(x.rssAfterLoadBytes / 2 ** 20)} | ${fmt(x.startupMs)} |`,
    ),
    ``,
    `Request lines logged once stopped: ${s.logged
      .filter((l) => l.logging)
      .map(
        (l) =>
          `${l.target} ${l.lines.toLocaleString("en-US")} for ${l.answered.toLocaleString("en-US")} answers received`,
      )
      .join("; ")}`,
  ];
}

function logging(l: LoggingCost): string[] {
  return [
    `Log lines' cost: every server under ${l.rate} creates a second at once, ${l.seconds} s windows; CPU per answer over the --quiet twin's in the same window:`,
    `| target | compared with | CPU us an answer | over the twin's, median (min to max) |`,
    `|---|---|---|---|`,
    ...l.rows.map((x) => `| ${x.target} | ${x.quiet} | ${fmt(x.cpuUsPerRequest)} | ${spread(x.overQuiet)} |`),
  ];
}

function startup(s: StartupResult): string[] {
  const p = s.phases;
  return [
    `Start-up, spawn to the URL in --ready-file, ${s.runs} runs each, round robin:`,
    `| case | operations | wall ms, median (min to max) | CPU ms when ready, median (min to max) |`,
    `|---|---|---|---|`,
    ...s.cases.map(
      (c) =>
        `| ${c.name} | ${c.operations ?? "-"} | ${fmt(c.wallMs.median)} (${fmt(c.wallMs.min)} to ${fmt(c.wallMs.max)}) | ${fmt(c.cpuMs.median)} (${fmt(c.cpuMs.min)} to ${fmt(c.cpuMs.max)}) |`,
    ),
    `Inside one start of the generated 200-operation document: imports ${fmt(p.importMs)} ms, loadContract ${fmt(p.loadContractMs)} ms, the engine made and listening ${fmt(p.listenMs)} ms`,
  ];
}

function memory(m: MemoryResult): string[] {
  const us = (rows: MemoryResult["createNs"] | undefined, what: string): string[] =>
    rows === undefined
      ? []
      : [
          `${what}: ${rows.map((c) => `${fmt(c.atCount / 1000, 2)} us at ${c.count.toLocaleString("en-US")} (beside it: ${fmt(c.empty / 1000, 2)} us)`).join("; ")}`,
        ];
  return [
    m.server === "reference" ? `The reference server's store:` : `The mock engine's store, serving ${m.spec}:`,
    `| plants stored | heap used MB | RSS MB |`,
    `|---|---|---|`,
    ...m.counts.map(
      (c, i) =>
        `| ${c.toLocaleString("en-US")} | ${fmt(m.heapUsedBytes[i]! / 2 ** 20, 1)} | ${fmt(m.rssBytes[i]! / 2 ** 20, 1)} |`,
    ),
    `bytes per plant: ${fmt(m.bytesPerPlantHeap)} (heap), ${fmt(m.bytesPerPlantRss)} (RSS)`,
    ...us(m.createNs, "create (median of 15 batches of 2,000, each beside a batch on an empty store)"),
    ...us(m.readNs, "read by id (beside: a store of 100)"),
    ...us(m.listNs, "list of 20 (beside: a store of 100)"),
  ];
}

function harness(h: NonNullable<BenchResult["harness"]>): string[] {
  return [
    `Default conformance suite, process start to exit: median ${fmt(h.suiteWallMs.median)} ms (min ${fmt(h.suiteWallMs.min)}, max ${fmt(h.suiteWallMs.max)}, ${h.suiteWallMs.runs} runs; target < 1000)`,
    `Start-up: imports ${fmt(h.startup.importMs)} ms, spec load and compile ${fmt(h.startup.loadContractMs)} ms, fixtures ${fmt(h.startup.loadFixturesMs)} ms`,
    ...h.throughput.map(
      (t) =>
        `${h.generatedCases} generated cases at concurrency ${t.concurrency}: harness ${fmt(t.harness)} exchanges/s, raw undici ${fmt(t.rawUndici)}/s, ratio ${fmt(t.ratio, 2)} (target >= 0.70)` +
        (t.rawDispatch === undefined || t.overDispatch === undefined
          ? ""
          : `; raw undici dispatch ${fmt(t.rawDispatch)}/s, harness over it ${fmt(t.overDispatch, 2)}`),
    ),
  ];
}

function proxy(p: NonNullable<BenchResult["proxy"]>): string[] {
  const seq = (x: { p50Ms: number; p99Ms: number }) => `p50 ${fmt(x.p50Ms, 2)} ms, p99 ${fmt(x.p99Ms, 2)} ms`;
  return [
    `Reference server, valid creates, saturated (autocannon), medians of ${p.rounds} rounds: direct ${fmt(p.direct.requestsPerSecond)} req/s, p99 ${fmt(p.direct.p99Ms, 1)} ms; bare node:http pass-through ${fmt(p.bare.requestsPerSecond)} req/s, p99 ${fmt(p.bare.p99Ms, 1)} ms; plantstore proxy ${fmt(p.proxied.requestsPerSecond)} req/s, p99 ${fmt(p.proxied.p99Ms, 1)} ms`,
    `proxy/direct req/s ${fmt(p.ratio, 2)} (issue target >= 0.60; the bare pass-through reaches ${fmt(p.bareRatio, 2)}); proxy/bare pass-through ${fmt(p.ratioToBare, 2)}; saturated p99 added ${fmt(p.addedP99Ms, 1)} ms (issue target <= 2); errors ${p.direct.errors + p.bare.errors + p.proxied.errors}, non-2xx ${p.direct.non2xx + p.bare.non2xx + p.proxied.non2xx}`,
    ...(p.validating === undefined || p.cpuUsPerExchange === undefined
      ? []
      : [
          `Hand-written validating pass-through (Ajv, both bodies of each create) ${fmt(p.validating.requestsPerSecond)} req/s, ${fmt(p.validating.requestsPerSecond / p.bare.requestsPerSecond, 2)} of the bare pass-through; plantstore proxy over it ${fmt(p.ratioToValidating!, 2)}. ` +
            `CPU µs an exchange (medians): bare ${fmt(p.cpuUsPerExchange.bare, 1)}, validating ${fmt(p.cpuUsPerExchange.validating, 1)}, plantstore proxy ${fmt(p.cpuUsPerExchange.proxied, 1)}`,
        ]),
    `One request at a time: direct ${seq(p.sequential.direct)}; bare pass-through ${seq(p.sequential.bare)}; plantstore proxy ${seq(p.sequential.proxied)}; p99 added ${fmt(p.sequentialAddedP99Ms, 2)} ms`,
  ];
}
