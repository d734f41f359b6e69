import { Ajv } from "ajv";
import { startPassThrough } from "./pass-through.js";
import { ERROR, NEW_PLANT, PLANT } from "./plant-schemas.js";

// The anchor for `plantstore proxy`: what a team would write by hand to check the Plant Store's
// traffic, the bare pass-through (bench/pass-through.ts) with each create's request body validated
// by NewPlant's JSON Schema and its answer by Plant's (200) or Error's (any other status), compiled
// with Ajv, after the answer is forwarded. No timeouts, hop-by-hop handling, secrets, records or
// reproductions: the cost of judging at its least. On SIGTERM it says (stderr) how many it judged
// and refused.
const ajv = new Ajv();
const [validRequest, validPlant, validError] = [ajv.compile(NEW_PLANT), ajv.compile(PLANT), ajv.compile(ERROR)];
let judged = 0;
let refused = 0;

function valid(check: (value: unknown) => boolean, body: Buffer[]): boolean {
  try {
    return check(JSON.parse(Buffer.concat(body).toString("utf8")));
  } catch {
    return false;
  }
}

startPassThrough(
  new URL(process.argv[2] ?? "http://127.0.0.1:4010"),
  (req) => {
    const requestBody: Buffer[] = [];
    req.on("data", (chunk: Buffer) => requestBody.push(chunk));
    return (incoming) => {
      const responseBody: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => responseBody.push(chunk));
      incoming.on("end", () => {
        if (req.method !== "POST" || req.url !== "/plants") return;
        judged++;
        const answer = incoming.statusCode === 200 ? validPlant : validError;
        const json = /^application\/json\b/.test(incoming.headers["content-type"] ?? "");
        if (!valid(validRequest, requestBody) || !json || !valid(answer, responseBody)) refused++;
      });
    };
  },
  () => process.stderr.write(`validating pass-through: judged ${judged} creates, ${refused} refused\n`),
);
