import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kitContract } from "../../test/helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { loadFixture } from "./fixtures/load.js";
import { Random } from "./fresh.js";
import { prepareRequest } from "./prepare-request.js";

const contract = await kitContract();
const secrets = { token: "tkn", wrongToken: "wrong" };

function write(name: string, data: unknown): string {
  const dir = tempDir("plantstore-fx-");
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(data));
  return file;
}
const base = (steps: unknown[]) => ({ id: "case", description: "d", operation: "createPlant", steps });

describe("prepareRequest", () => {
  const fixture = () =>
    loadFixture(
      write(
        "case",
        base([
          { request: { body: { id: { $fresh: "a", kind: "int64-big" }, name: "x" } }, expect: { kind: "valid" } },
          { request: { rawBody: '{"id": {{fresh:a}}, "name": "{{fresh:s:string}}"}' }, expect: { kind: "duplicate" } },
          { request: { credentials: "other-scheme", body: { id: 1, name: "x" } }, expect: { kind: "unauthorised" } },
        ]),
      ),
      contract,
    );

  it("gives the same fresh value to the same name in every step, exactly beyond 2^53", () => {
    const f = fixture();
    const fresh = new Map<string, bigint | string>();
    const random = new Random(42n);
    const first = prepareRequest(f, 0, fresh, random, secrets);
    const second = prepareRequest(f, 1, fresh, random, secrets);
    const id = fresh.get("a") as bigint;
    expect(id > 2n ** 53n).toBe(true);
    expect(first.body?.toString()).toBe(`{"id":${id},"name":"x"}`);
    expect(second.body?.toString()).toMatch(new RegExp(`^\\{"id": ${id}, "name": "fresh-[0-9a-f]{16}"\\}$`));
    expect(first.headers).toEqual({
      "accept-encoding": "identity",
      "content-type": "application/json",
      authorization: "Bearer tkn",
    });
    expect(first.method).toBe("POST");
    expect(first.path).toBe("/plants");
  });

  it("puts the right token under another scheme for other-scheme", () => {
    expect(prepareRequest(fixture(), 2, new Map(), new Random(1n), secrets).headers.authorization).toBe("Basic tkn");
  });

  it("draws the same values from the same seed", () => {
    const draw = (seed: bigint) => prepareRequest(fixture(), 0, new Map(), new Random(seed), secrets).body?.toString();
    expect(draw(7n)).toBe(draw(7n));
    expect(draw(7n)).not.toBe(draw(8n));
  });
});
