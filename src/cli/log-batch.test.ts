import { execFile } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { KIT_ROOT } from "../paths.js";
import { REQUEST_LINE_PARTS } from "../server/request-line.js";
import { FLUSH_MS, logBatch, MAX_LINES } from "./log-batch.js";

// A timer set after the batch's fires after it: waiting FLUSH_MS * 2 sees the batch written.
const afterBatch = (): Promise<void> => sleep(FLUSH_MS * 2);

/** A batch to an output that takes bytes: what it wrote as text, and as bytes (decoded), call by call. */
function byteBatch(): { batch: ReturnType<typeof logBatch>; texts: string[]; chunks: string[] } {
  const texts: string[] = [];
  const chunks: string[] = [];
  const batch = logBatch(
    (text) => texts.push(text),
    (bytes) => chunks.push(new TextDecoder().decode(bytes)),
  );
  return { batch, texts, chunks };
}

describe("logBatch", () => {
  it("writes the lines of a moment as one call, in order, each line as it was", async () => {
    const calls: string[] = [];
    const batch = logBatch((text) => calls.push(text));
    batch.line("a 200 0.1ms");
    batch.line("b 201 0.2ms");
    batch.line("c 404 0.3ms");
    expect(calls).toEqual([]);
    await afterBatch();
    expect(calls).toEqual(["a 200 0.1ms\nb 201 0.2ms\nc 404 0.3ms"]);
    batch.line("d 200 0.1ms");
    await afterBatch();
    expect(calls).toEqual(["a 200 0.1ms\nb 201 0.2ms\nc 404 0.3ms", "d 200 0.1ms"]);
    batch.close();
  });

  it("flush writes what is pending at once, and nothing when nothing is", async () => {
    const calls: string[] = [];
    const batch = logBatch((text) => calls.push(text));
    batch.flush();
    batch.line("a");
    batch.flush();
    expect(calls).toEqual(["a"]);
    await afterBatch();
    expect(calls).toEqual(["a"]);
    batch.close();
  });

  it(`never holds more than ${MAX_LINES} lines, however busy the server`, () => {
    const calls: string[] = [];
    const batch = logBatch((text) => calls.push(text));
    const count = MAX_LINES * 2 + 88;
    for (let i = 0; i < count; i++) batch.line(String(i));
    expect(calls.map((c) => c.split("\n").length)).toEqual([MAX_LINES, MAX_LINES]);
    batch.close();
    expect(calls.flatMap((c) => c.split("\n"))).toEqual(Array.from({ length: count }, (_, i) => String(i)));
  });

  it("gives the output bytes where it takes them: the same lines, each ended by a newline", () => {
    const { batch, texts, chunks } = byteBatch();
    batch.line("GET /plantes/fougère 200 0.1ms");
    batch.line(`GET /${"x".repeat(50_000)} 404 0.3ms`);
    batch.line("after");
    batch.close();
    expect(chunks).toEqual(["GET /plantes/fougère 200 0.1ms\n", "after\n"]);
    // A line longer than the batch's room goes out on its own, as text, in its place.
    expect(texts).toEqual([`GET /${"x".repeat(50_000)} 404 0.3ms`]);
  });

  it("keeps every character and the order of lines of any length (a path in any script, a line past the buffer)", () => {
    const calls: string[] = [];
    const batch = logBatch((text) => calls.push(text));
    const lines = [
      "GET /plantes/fougère 200 0.1ms",
      "GET /植物 404 0.2ms",
      "GET /🌿 404 0.1ms",
      `GET /${"x".repeat(50_000)} 404 0.3ms`,
      "after the long one",
      ...Array.from({ length: 300 }, (_, i) => `${"é".repeat(200)} ${i}`),
    ];
    for (const line of lines) batch.line(line);
    batch.close();
    expect(calls.flatMap((c) => c.split("\n"))).toEqual(lines);
    // The long line went out on its own, after the lines before it.
    expect(calls[1]).toBe(lines[3]);
  });

  it("takes a server's line as its parts: its bytes among the text lines, in order; a long one on its own", () => {
    const { batch, texts, chunks } = byteBatch();
    const parts = batch.line[REQUEST_LINE_PARTS]!;
    batch.line("before");
    parts("GET", "/plantes/fougère", 200, 7, undefined);
    parts("DELETE", "/plants/1", 404, 12, "no plant 1");
    parts("GET", `/${"x".repeat(50_000)}`, 404, 3, undefined);
    batch.line("after");
    batch.close();
    const date = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;
    expect(chunks).toHaveLength(2);
    const [first, second] = chunks.map((c) => c.split("\n"));
    expect(first).toHaveLength(4);
    expect(first![0]).toBe("before");
    expect(first![1]).toMatch(new RegExp(`^${date} GET /plantes/fougère 200 0\\.7ms$`));
    expect(first![2]).toMatch(new RegExp(`^${date} DELETE /plants/1 404 1\\.2ms \\(no plant 1\\)$`));
    expect(first![3]).toBe("");
    // Longer than the batch's room: made as text and written on its own, after the lines before it.
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(new RegExp(`^${date} GET /x{50000} 404 0\\.3ms$`));
    expect(second).toEqual(["after", ""]);
  });

  it("writes a batch of parts alone when it is due, and at most MAX_LINES of them at once", async () => {
    const { batch, chunks } = byteBatch();
    const parts = batch.line[REQUEST_LINE_PARTS]!;
    const listening = process.listenerCount("exit");
    parts("GET", "/plants", 200, 1, undefined);
    expect(chunks).toEqual([]);
    // Watched from the first line: what is pending is written at the process's exit.
    expect(process.listenerCount("exit")).toBe(listening + 1);
    await afterBatch();
    expect(chunks.map((c) => c.split("\n").length - 1)).toEqual([1]);
    for (let i = 0; i < MAX_LINES + 5; i++) parts("GET", `/plants/${i}`, 200, 1, undefined);
    expect(chunks.map((c) => c.split("\n").length - 1)).toEqual([1, MAX_LINES]);
    batch.close();
    expect(chunks.map((c) => c.split("\n").length - 1)).toEqual([1, MAX_LINES, 5]);
  });

  it("writes long lines given as parts whole: a batch is written before it would overflow", () => {
    const { batch, chunks } = byteBatch();
    const path = `/${"é".repeat(2_000)}`;
    for (let i = 0; i < 300; i++) batch.line[REQUEST_LINE_PARTS]!("GET", path, 200 + (i % 100), 1, undefined);
    batch.close();
    const lines = chunks.join("").split("\n").slice(0, -1);
    expect(lines).toHaveLength(300);
    lines.forEach((line, i) => expect(line.endsWith(`Z GET ${path} ${200 + (i % 100)} 0.1ms`)).toBe(true));
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("watches the process's exit from its first line until it is closed", () => {
    const before = process.listenerCount("exit");
    const batch = logBatch(() => undefined);
    expect(process.listenerCount("exit")).toBe(before);
    batch.line("a");
    batch.line("b");
    expect(process.listenerCount("exit")).toBe(before + 1);
    batch.close();
    expect(process.listenerCount("exit")).toBe(before);
  });

  it("writes the lines still pending when the process exits before their batch is due", async () => {
    const built = pathToFileURL(join(KIT_ROOT, "dist", "src", "cli", "log-batch.js")).href;
    const script = `import { logBatch } from ${JSON.stringify(built)};
const batch = logBatch((text) => process.stdout.write(text + "\\n"));
batch.line("one");
batch.line("two");
process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
    expect(stdout).toBe("one\ntwo\n");
  });
});
