import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { startPrism, type RunningPrism } from "./prism.js";

// Throws of the real Prism that each ended the whole mock on one request, met in public documents
// (gitea, telnyx), reproduced here with a small document of our own.
const DOCUMENT = `openapi: 3.0.3
info: { title: prism throws, version: "1" }
paths:
  /listed:
    get:
      responses:
        "200":
          description: a response header whose schema is an array; Prism generates null for it
          headers:
            X-Items:
              schema: { type: array, items: { type: string } }
          content:
            application/json:
              schema: { type: object }
  /download:
    get:
      responses:
        "200":
          description: a content key that is not a media type
          content:
            "*":
              schema: { type: string, format: binary }
  /upload:
    post:
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                meta: { type: object }
      responses:
        "204": { description: stored }
  /fine:
    get:
      responses:
        "200":
          description: an ordinary answer
          content:
            application/json:
              schema: { type: object }
              example: { fine: true }
`;

let prism: RunningPrism | undefined;
afterEach(async () => {
  await prism?.stop();
  prism = undefined;
});

describe("the Prism mock survives Prism's own throws", () => {
  it("answers 500 problem+json to the request Prism throws on, and goes on answering the others", async () => {
    const spec = join(tempDir("plantstore-prism-throws-"), "openapi.yaml");
    writeFileSync(spec, DOCUMENT);
    const output: string[] = [];
    prism = await startPrism({ port: 0, spec, onOutput: (line) => output.push(line) });
    const { url } = prism;
    let exited = false;
    void prism.exited.then(() => (exited = true));
    const boundary = "b0undary";
    const multipart = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="meta"; filename="meta.json"',
      "",
      '{"a":1}',
      `--${boundary}--`,
      "",
    ].join("\r\n");
    const throwing: [string, RequestInit][] = [
      ["/listed", {}],
      ["/download", { headers: { accept: "*" } }],
      [
        "/upload",
        { method: "POST", headers: { "content-type": `multipart/form-data; boundary=${boundary}` }, body: multipart },
      ],
    ];
    for (const [path, init] of throwing) {
      const response = await fetch(url + path, { ...init, signal: AbortSignal.timeout(10_000) });
      expect([path, response.status, response.headers.get("content-type")]).toEqual([
        path,
        500,
        "application/problem+json",
      ]);
      expect((await response.json()) as unknown).toMatchObject({
        status: 500,
        detail: expect.stringContaining("Prism"),
      });
      const fine = await fetch(`${url}/fine`, { signal: AbortSignal.timeout(10_000) });
      expect([fine.status, await fine.json()]).toEqual([200, { fine: true }]);
    }
    expect(exited).toBe(false);
    expect(output.filter((l) => l.includes("that request is answered 500, the mock goes on"))).toHaveLength(3);
  }, 90_000);
});
