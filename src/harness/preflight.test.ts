import { describe, expect, it } from "vitest";
import { setupProblem } from "./preflight.js";
import type { PreflightProbe } from "./results.js";

const probe = (status: number | undefined, withCredentials = true, path = "/plants"): PreflightProbe => ({
  operation: "op",
  method: "POST",
  url: `http://t${path}`,
  status,
  withCredentials,
});

describe("setupProblem: what the pre-flight's answers say of the run's setup", () => {
  it.each([
    ["no probe", [], undefined],
    ["no answer at all (nothing is concluded)", [probe(undefined)], undefined],
    ["the documented success", [probe(200)], undefined],
    ["a 400 (the target is there and judged later)", [probe(400)], undefined],
    ["one operation missing, another answering", [probe(404), probe(200, true, "/shops")], undefined],
    ["every probe 404", [probe(404), probe(404, false, "/shops")], "PS_PATHS_NOT_FOUND"],
    ["valid credentials refused with 401", [probe(401)], "PS_CREDENTIALS_REFUSED"],
    ["valid credentials refused with 403", [probe(403)], "PS_CREDENTIALS_REFUSED"],
    [
      "refused with credentials, answered without",
      [probe(401), probe(200, false, "/health")],
      "PS_CREDENTIALS_REFUSED",
    ],
    ["a 401 without credentials is no setup mistake", [probe(401, false)], undefined],
    ["refused once, accepted once", [probe(401), probe(200, true, "/shops")], undefined],
  ] as const)("%s", (_name, probes, code) => {
    expect(setupProblem(probes)?.code).toBe(code);
  });

  it("names every probe and the flag to check", () => {
    expect(setupProblem([probe(404)])?.message).toBe(
      "no documented path found under the target: pre-flight: POST http://t/plants got 404; is the base path of --target right?",
    );
    expect(setupProblem([probe(401)])?.message).toBe(
      "credentials refused: pre-flight with valid credentials: POST http://t/plants got 401; is --token (or --credential) right for this target?",
    );
  });
});
