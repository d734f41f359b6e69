import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// The baseline of the read-heavy mix (bench/reads.ts): a bare node:http server doing the trivial
// part of the multi-operation Plant Store's work, and nothing more. It compares the bearer token,
// routes by string, keeps plants in one Map by id, reads one by id (404 if absent), lists the first
// `limit` (20 by default), creates one after JSON.parse with a check that id is an integer and name a
// string (409 on a known id). No schema validation, no exact int64 ids, no answer checked against the
// document, no CORS, no log. Run as: node dist/bench/bare-store-server.js [SEED.json]
// (SEED.json: {"/plants": [{"id": 1, "name": "..."}, ...]}, as `serve --spec --data` reads it).

type Plant = { id: number; name: string; tag?: string };
const TOKEN = "Bearer bench-token-0123456789";
const plants = new Map<number, Plant>();
const seed = process.argv[2];
if (seed !== undefined)
  for (const p of (JSON.parse(readFileSync(seed, "utf8")) as Record<string, Plant[]>)["/plants"] ?? [])
    plants.set(p.id, p);

const json = (res: ServerResponse, status: number, value: unknown): void => {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
};

function list(res: ServerResponse, query: string): void {
  const limit = Number(/(?:^|&)limit=(\d+)/.exec(query)?.[1] ?? 20);
  const out: Plant[] = [];
  for (const p of plants.values()) {
    if (out.length >= limit) break;
    out.push(p);
  }
  json(res, 200, out);
}

function create(res: ServerResponse, text: string): void {
  let plant: Plant;
  try {
    plant = JSON.parse(text) as Plant;
  } catch {
    return json(res, 400, { error: 400, message: "bad json" });
  }
  if (!Number.isInteger(plant.id) || typeof plant.name !== "string")
    return json(res, 400, { error: 400, message: "bad plant" });
  if (plants.has(plant.id)) return json(res, 409, { error: 409, message: "exists" });
  plants.set(plant.id, plant);
  json(res, 200, plant);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.headers.authorization !== TOKEN) return json(res, 401, { error: 401, message: "no token" });
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (path === "/plants" && req.method === "GET") return list(res, q < 0 ? "" : url.slice(q + 1));
    if (path === "/plants" && req.method === "POST") return create(res, Buffer.concat(chunks).toString("utf8"));
    if (path.startsWith("/plants/") && req.method === "GET") {
      const plant = plants.get(Number(path.slice(8)));
      return plant === undefined ? json(res, 404, { title: "Not Found", status: 404 }) : json(res, 200, plant);
    }
    json(res, 404, { title: "Not Found", status: 404 });
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
