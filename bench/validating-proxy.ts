import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv } from "ajv";

// The anchor for `plantstore proxy`: what a team would write by hand to check the Plant Store's
// traffic, the bare pass-through (bench/bare-proxy.ts) with each create's request body validated by
// NewPlant's JSON Schema and its answer by Plant's (200) or Error's (any other status), compiled with
// Ajv, after the answer is forwarded. No timeouts, hop-by-hop handling, secrets, records or
// reproductions: the cost of judging at its least. On SIGTERM it says (stderr) how many it judged and refused.
const newPlant = {
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "integer" }, name: { type: "string" }, tag: { type: "string" } },
} as const;
const plant = {
  type: "object",
  required: ["name"],
  properties: { name: { type: "string" }, tag: { type: "string" } },
} as const;
const error = {
  type: "object",
  required: ["error", "message"],
  properties: { error: { type: "integer" }, message: { type: "string" } },
} as const;
const ajv = new Ajv();
const [validRequest, validPlant, validError] = [ajv.compile(newPlant), ajv.compile(plant), ajv.compile(error)];
let judged = 0;
let refused = 0;

function valid(check: (value: unknown) => boolean, body: Buffer[]): boolean {
  try {
    return check(JSON.parse(Buffer.concat(body).toString("utf8")));
  } catch {
    return false;
  }
}

const upstream = new URL(process.argv[2] ?? "http://127.0.0.1:4010");
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const requestBody: Buffer[] = [];
  req.on("data", (chunk: Buffer) => requestBody.push(chunk));
  const out = request(
    {
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent,
    },
    (incoming) => {
      res.writeHead(incoming.statusCode ?? 502, incoming.headers);
      const responseBody: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => responseBody.push(chunk));
      incoming.on("end", () => {
        if (req.method !== "POST" || req.url !== "/plants") return;
        judged++;
        const answer = incoming.statusCode === 200 ? validPlant : validError;
        const json = /^application\/json\b/.test(incoming.headers["content-type"] ?? "");
        if (!valid(validRequest, requestBody) || !json || !valid(answer, responseBody)) refused++;
      });
      incoming.pipe(res);
    },
  );
  out.on("error", () => res.destroy());
  req.pipe(out);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => {
  process.stderr.write(`validating pass-through: judged ${judged} creates, ${refused} refused\n`);
  server.close(() => process.exit(0));
});
