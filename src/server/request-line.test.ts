import fc from "fast-check";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { requestLine, requestLineRoom, writeRequestLine } from "./request-line.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "M-SEARCH"];

/** The parts' bytes as written, and the text line's bytes as a UTF-8 encoder gives them, with a newline. */
function both(
  method: string,
  path: string,
  status: number,
  tenths: number,
  reason: string | undefined,
): { written: Buffer; encoded: Buffer; room: number } {
  const room = requestLineRoom(method, path, reason);
  // Filled with a byte no line has, so a byte written past the end, or one skipped, shows.
  const buffer = Buffer.alloc(room + 16, 0xff);
  const end = writeRequestLine(buffer, 5, method, path, status, tenths, reason);
  // The clock is read twice: the two lines are compared without their dates (24 bytes, ASCII).
  const text = requestLine(method, path, status, tenths, reason);
  return {
    written: buffer.subarray(5, end),
    encoded: Buffer.from(`${text}\n`, "utf8"),
    room,
  };
}

/** Any code point, or a lone surrogate ("binary" alone never gives one). */
const anyUnit = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
);

const withoutDate = (b: Buffer): string => b.subarray(24).toString("latin1");

describe("the request line as bytes", () => {
  it("is the text line's UTF-8 bytes and a newline, whatever the path and the reason hold", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...METHODS),
        fc.string({ unit: anyUnit, maxLength: 60 }),
        fc.integer({ min: 100, max: 599 }),
        fc.oneof(fc.nat(1_000), fc.nat(Number.MAX_SAFE_INTEGER)),
        fc.option(fc.string({ unit: anyUnit, maxLength: 40 }), { nil: undefined }),
        (method, path, status, tenths, reason) => {
          const { written, encoded, room } = both(method, path, status, tenths, reason);
          expect(withoutDate(written)).toBe(withoutDate(encoded));
          expect(written.subarray(0, 24).toString("latin1")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          expect(written.length).toBeLessThanOrEqual(room);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("writes lone surrogates and characters beyond the BMP as the encoder does", () => {
    for (const path of ["/a\ud800b", "/\udc00", "/plantes/fougère", "/🌿/x", "/a\u007f\u0080"]) {
      const { written, encoded } = both("GÉT", path, 200, 3, "a reason: é\ud83c");
      expect(withoutDate(written)).toBe(withoutDate(encoded));
    }
  });

  it("writes a status or time that is no safe non-negative integer by the text's rules", () => {
    for (const [status, tenths] of [
      [200, -1],
      [-5, 12],
      [200.5, 3.5],
      [2 ** 60, 2 ** 60],
      [NaN, Infinity],
      [-1.2345678901234567e-300, -1.2345678901234567e-300],
    ] as const) {
      const { written, encoded, room } = both("GET", "/x", status, tenths, undefined);
      expect(withoutDate(written)).toBe(withoutDate(encoded));
      expect(written.length).toBeLessThanOrEqual(room);
    }
  });

  it("is dated when it is written, as the clock moves", async () => {
    for (let i = 0; i < 3; i++) {
      // Past the millisecond of the line before: a date kept from it would show.
      await sleep(5);
      const before = new Date().toISOString();
      const { written } = both("GET", "/x", 200, 1, undefined);
      const after = new Date().toISOString();
      const date = written.subarray(0, 24).toString("latin1");
      expect(date >= before && date <= after, `${before} <= ${date} <= ${after}`).toBe(true);
    }
  });

  it("reads like the documented line", () => {
    const { written } = both("POST", "/plants", 201, 4, undefined);
    expect(written.toString("utf8")).toMatch(/^\S+Z POST \/plants 201 0\.4ms\n$/);
    const refused = both("DELETE", "/plants/7", 404, 123, "no plant 7");
    expect(refused.written.toString("utf8")).toMatch(/^\S+Z DELETE \/plants\/7 404 12\.3ms \(no plant 7\)\n$/);
  });
});
