import { describe, expect, it } from "vitest";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { startVariant, type Override } from "../../test/variant-server.js";
import { consoleReporter } from "./reporters/console.js";
import type { RunEvent } from "./results.js";
import { runConformance } from "./run.js";

const contract = await kitContract();

/** The reference answers every request but a body that is a JSON string, on which the server does `wire`. */
async function runAgainst(wire: Override, concurrency: number) {
  const server = await startVariant(contract, (request) =>
    Buffer.from(request.body).toString("utf8").trim() === '"plant"' ? wire : undefined,
  );
  const lines: string[] = [];
  const write = consoleReporter((line) => lines.push(line), { color: false, verbose: false });
  try {
    const events: RunEvent[] = [];
    const { summary, results } = await runConformance(
      { target: server.url, token: TOKEN, contract, concurrency, seed: 1n },
      (event) => {
        events.push(event);
        write(event);
      },
    );
    return { summary, results, lines };
  } finally {
    await server.close();
  }
}

describe("a target that stops answering during a run", () => {
  it.each([1, 4, 8])(
    "crashes on one request at concurrency %i: the run names it, counts the rest as not sent and exits 2",
    async (concurrency) => {
      const { summary, results, lines } = await runAgainst({ wire: "crash" }, concurrency);
      expect(summary.exitCode).toBe(2);
      expect(summary.errorCode).toBe("PS_TARGET_STOPPED");
      expect(summary.runError).toMatch(/^the target stopped answering during invalid-body-string\b/);
      expect(summary.runError).toMatch(/connection (closed without an answer|reset), then refused\): did it crash\?/);
      const crashed = results.find((r) => r.fixture === "invalid-body-string")!;
      // Alone on the wire the reset is its own and judged; with others in flight it is named, not judged.
      if (concurrency === 1) expect(crashed.outcome).toBe("fail");
      else expect(crashed.error).toMatch(/stopped answering during this request, most likely/);
      // No bystander is charged with the reset, and no case after the stop is an error of its own.
      const charged = results.filter((r) => r.outcome === "fail" && r.fixture !== "invalid-body-string");
      expect(charged.map((r) => r.fixture)).toEqual([]);
      const notSent = results.filter((r) => r.held === "not-sent");
      expect(notSent.length).toBeGreaterThan(20);
      expect(summary.notSent).toBe(notSent.length);
      expect(summary.runError).toContain(`; ${notSent.length} cases not sent`);
      const stray = results.filter((r) => r.outcome === "error" && r.held === undefined);
      expect(stray.map((r) => r.fixture)).toEqual(concurrency === 1 ? [] : ["invalid-body-string"]);
      // The console: no connection errors, and what the stop did in a few lines.
      expect(lines.filter((l) => /could not connect|ECONNREFUSED/.test(l))).toEqual([]);
      const told = lines.filter((l) => /stopped answering|cut off|not sent/.test(l));
      expect(told.length).toBeLessThan(10);
      expect(lines).toContain(`  not sent: ${notSent.length} cases (the target had stopped answering)`);
      expect(lines.find((l) => l.startsWith("could not judge the target: "))).toMatch(/\[PS_TARGET_STOPPED\]$/);
    },
  );

  it("drops every connection on one request but keeps listening: the reset is charged to that request alone", async () => {
    for (const concurrency of [1, 8]) {
      const { summary, results } = await runAgainst({ wire: "drop-all" }, concurrency);
      const failing = results.filter((r) => r.outcome === "fail");
      expect(failing.map((r) => r.fixture)).toEqual(["invalid-body-string"]);
      const findings = failing[0]!.steps.flatMap((s) => s.findings).filter((f) => f.counts);
      expect(findings.map((f) => f.check)).toEqual(["response.received"]);
      // A bystander is sent again alone and judged on that answer (a create sent twice, as a
      // duplicate's): never failed, never left unjudged.
      expect(results.filter((r) => r.outcome === "error")).toEqual([]);
      expect(summary.exitCode).toBe(1);
    }
  });

  it("answers the pre-flight, then crashes on the first case: the run says it stopped there, not that it never answered", async () => {
    let requests = 0;
    const server = await startVariant(contract, () => (requests++ === 0 ? undefined : { wire: "crash" }));
    try {
      const { summary, results } = await runConformance({ target: server.url, token: TOKEN, contract, concurrency: 1 });
      expect(summary.errorCode).toBe("PS_TARGET_STOPPED");
      expect(summary.runError).toMatch(new RegExp(`^the target stopped answering during ${results[0]!.fixture} \\(`));
      expect(results.slice(1).every((r) => r.held === "not-sent")).toBe(true);
    } finally {
      await server.close();
    }
  });
});
