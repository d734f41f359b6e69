import Fastify, { LogController, type FastifyError, type FastifyServerOptions } from "fastify";
import { createRequire } from "node:module";
import { ERROR, NEW_PLANT } from "./plant-schemas.js";

// The anchor: what a team would write by hand for the Plant Store's create with Fastify 5. The bearer
// token checked, the body validated by its JSON Schema (Fastify compiles it with Ajv), a Map store
// that answers 409 for an id it holds, the answer serialised by its response schema
// (fast-json-stringify). Not exact beyond 2^53 (JSON.parse), which the kit is: the cost of that is
// part of what the bench shows.
//
// `--log line FILE`, `--log default FILE`: with a log of its requests (else none). The anchor of
// `serve`'s log lines.
// - line: one line an answer, as `serve` writes (method, URL, status, time), in a hook on its answers
//   with Fastify's own request lines off (its documented way), through pino's asynchronous
//   destination with a 4 KB buffer (pino's advice for throughput): the cheapest log Fastify offers.
// - default: what `logger: true` writes, two lines a request, each written at once, as it writes them
//   to its stdout; here to a file, since the bench reads this process's stdout.
const TOKEN = process.env.PLANTSTORE_BENCH_TOKEN ?? "bench-token-0123456789";
const [flag, mode, file] = process.argv.slice(2);
if (flag !== undefined && (flag !== "--log" || (mode !== "line" && mode !== "default") || file === undefined))
  throw new Error(`usage: fastify-server.js [--log line|default FILE], not ${process.argv.slice(2).join(" ")}`);

const app = Fastify(options());
const store = new Map<number, { id: number; name: string; tag?: string }>();

// Fastify's own 400 for a body that breaks the schema, in the contract's Error shape.
app.setErrorHandler((err: FastifyError, _req, reply) => {
  const status = err.statusCode ?? 500;
  void reply.code(status).send({ error: status, message: err.message });
});

app.post<{ Body: { id: number; name: string; tag?: string } }>(
  "/plants",
  {
    schema: { body: NEW_PLANT, response: { 200: NEW_PLANT, 400: ERROR, 401: ERROR, 409: ERROR } },
    onRequest: (req, reply, done) => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`)
        void reply.code(401).send({ error: 401, message: "a valid bearer token is required" });
      else done();
    },
  },
  (req, reply) => {
    const plant = req.body;
    if (store.has(plant.id)) return reply.code(409).send({ error: 409, message: "a plant with this id exists" });
    store.set(plant.id, plant);
    return reply.code(200).send(plant);
  },
);

if (mode === "line")
  app.addHook("onResponse", (req, reply, done) => {
    const line = { method: req.method, url: req.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    reply.log.info(line, "request completed");
    done();
  });

app.listen({ port: 0, host: "127.0.0.1" }).then((address) => {
  process.stdout.write(`listening on ${address}\n`);
});
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));

function options(): FastifyServerOptions {
  if (file === undefined) return { logger: false };
  // The pino Fastify itself depends on (another, older pino is Prism's).
  const pino = createRequire(createRequire(import.meta.url).resolve("fastify"))("pino");
  const stream = pino.destination({ dest: file, sync: mode === "default", minLength: mode === "line" ? 4096 : 0 });
  if (mode === "default") return { loggerInstance: pino({}, stream) };
  const logController = new LogController({ disableRequestLogging: true });
  return { loggerInstance: pino({}, stream), logController };
}
