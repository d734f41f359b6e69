import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { kitContract, TOKEN } from "../test/helpers.js";
import { rawUpstream } from "../test/proxy-helpers.js";
import { startVariant } from "../test/variant-server.js";
import { consoleReporter } from "../src/harness/reporters/console.js";
import { jsonReport } from "../src/harness/reporters/json.js";
import { junitReport } from "../src/harness/reporters/junit.js";
import { runConformance } from "../src/harness/run.js";

// A catalogue of targets that misbehave on the wire. For each: the run ends within its time bounds,
// names the target's failure with the reason, keeps its memory bounded, and exits 1, or 2 where no
// HTTP answer came back at all.
const contract = await kitContract();
const TIMEOUT = 1_000;

const endless = (socket: Socket, chunk: Buffer): void => {
  const pump = (): void => {
    while (!socket.destroyed && socket.write(chunk));
    if (!socket.destroyed) socket.once("drain", pump);
  };
  pump();
};

const CATALOGUE: [string, (s: Socket) => void, number, RegExp][] = [
  ["never answers", () => undefined, 2, /no complete answer within 1000 ms/],
  [
    "answers headers, then stalls",
    (s) => s.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"),
    2,
    /no complete answer within 1000 ms/,
  ],
  ["resets the connection", (s) => s.resetAndDestroy(), 2, /closed before a complete answer|exchange failed/],
  [
    "sends invalid HTTP",
    (s) => s.end("HELLO THERE\r\n\r\n"),
    2,
    /not valid HTTP\/1\.1|closed before a complete answer/,
  ],
  [
    "sends a Content-Length longer than the body, then closes",
    (s) => s.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"name":"x"}'),
    2,
    /length differs|closed before a complete answer/,
  ],
  [
    "sends a body far larger than the read cap",
    (s) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n");
      endless(s, Buffer.alloc(64 * 1024, 0x20));
    },
    2,
    /passed the read cap of 65536 bytes/,
  ],
  [
    "sends an endless chunked body",
    (s) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
      endless(s, Buffer.from(`4000\r\n${" ".repeat(0x4000)}\r\n`));
    },
    2,
    /passed the read cap of 65536 bytes/,
  ],
  [
    "redirects to itself in a loop",
    (s) => s.write("HTTP/1.1 302 Found\r\nLocation: /plants\r\nContent-Length: 0\r\n\r\n"),
    1,
    /a valid request got 302/,
  ],
];

describe("the harness against broken targets", () => {
  it.each(CATALOGUE)(
    "%s",
    async (_name, misbehave, exitCode, reason) => {
      const target = await rawUpstream(misbehave);
      const rssBefore = process.memoryUsage().rss;
      const started = Date.now();
      try {
        const lines: string[] = [];
        const onConsole = consoleReporter((l) => lines.push(l), { color: false, verbose: true });
        const { summary, results } = await runConformance(
          { target: target.url, token: TOKEN, contract, timeoutMs: TIMEOUT, maxResponseBytes: 65_536 },
          onConsole,
        );
        // Every byte the run would write (console, JSON, JUnit) is searched for the token.
        expect(
          [lines.join("\n"), jsonReport(summary, results), junitReport(summary, results)].join("\n"),
        ).not.toContain(TOKEN);
        const seconds = (Date.now() - started) / 1000;
        expect(summary.exitCode).toBe(exitCode);
        const reasons = results
          .flatMap((r) => [
            r.error ?? "",
            ...r.steps.flatMap((s) => [s.transportFailure ?? "", ...s.findings.map((f) => f.message)]),
          ])
          .join("\n");
        expect(reasons).toMatch(reason);
        // Bounded: 46 cases at concurrency 4 would take 12 s of timeouts; the run gives up far sooner.
        expect(seconds).toBeLessThan(20);
        // Bounded memory: at most the read cap per exchange in flight, whatever the target sends.
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 2 ** 20);
      } finally {
        await target.close();
      }
    },
    30_000,
  );

  it("a target that closes the connection after every response is judged normally", async () => {
    const server = await startVariant(contract, (_r, _b, ref) => {
      const r = ref();
      return { ...r, headers: { ...r.headers, connection: "close" } };
    });
    try {
      const { summary } = await runConformance({ target: server.url, token: TOKEN, contract });
      expect(summary.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("a target that answers slowly, within the timeout, is judged normally", async () => {
    const server = await startVariant(contract, (_r, _b, ref) => {
      const r = ref();
      const until = Date.now() + 150;
      while (Date.now() < until); // answers 150 ms late, every time
      return r;
    });
    try {
      const { summary } = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        only: ["valid-basic", "invalid-missing-id", "auth-missing"],
      });
      expect(summary.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  });
});
