import { spawn } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { KIT_ROOT } from "../paths.js";
import { fdWriter } from "./fd-write.js";

// The writer the server's thread prints with: each chunk in full before it returns, a full pipe
// waited out, a reader gone taken quietly. Pipes are a child's stdout here: a real pipe, whose
// descriptor Node made non-blocking (the child touches process.stdout first, as Node's own stdout does).

const BUILT = pathToFileURL(join(KIT_ROOT, "dist", "src", "cli", "fd-write.js")).href;
const MB = 1024 * 1024;

/** A child that writes `mb` MB and then "end" to its stdout with fdWriter; resolves with its exit and stderr. */
function writer(
  mb: number,
  reader: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; err: string }> {
  const script = `import { fdWriter } from ${JSON.stringify(BUILT)};
process.stdout;
const w = fdWriter(1);
w(Buffer.alloc(${mb * MB}, 120));
w("end");
process.stderr.write("returned");`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  reader(child);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, err })));
}

describe("fdWriter", () => {
  it("has written a chunk in full when it returns, strings as UTF-8", () => {
    const file = join(tempDir("plantstore-fd-"), "out");
    const fd = openSync(file, "w");
    try {
      const w = fdWriter(fd);
      w("plante vivace, ");
      expect(readFileSync(file, "utf8")).toBe("plante vivace, ");
      w(Buffer.from("Fougère\n"));
      expect(readFileSync(file, "utf8")).toBe("plante vivace, Fougère\n");
    } finally {
      closeSync(fd);
    }
  });

  it("waits out a full pipe whose reader is slow: every byte arrives, in order", async () => {
    let bytes = 0;
    let tail = "";
    const { code, err } = await writer(4, (child) => {
      child.stdout!.pause();
      setTimeout(() => child.stdout!.resume(), 300);
      child.stdout!.on("data", (c: Buffer) => {
        bytes += c.length;
        tail = (tail + c.toString("latin1")).slice(-3);
      });
    });
    expect({ code, err, bytes, tail }).toEqual({ code: 0, err: "returned", bytes: 4 * MB + 3, tail: "end" });
  });

  it("drops what it is given once the reader is gone, and the writer goes on", async () => {
    const { code, err } = await writer(4, (child) => child.stdout!.destroy());
    expect({ code, err }).toEqual({ code: 0, err: "returned" });
  });
});
