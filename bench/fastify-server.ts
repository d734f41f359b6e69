import Fastify, { LogController, type FastifyError, type FastifyServerOptions } from "fastify";
import { createRequire } from "node:module";
import { ERROR, NEW_PLANT } from "./plant-schemas.js";

// The anchor: what a team would write by hand for the Plant Store's create with Fastify 5. The bearer
// token checked, the body validated by its JSON Schema (Fastify compiles it with Ajv), a Map store
// that answers 409 for an id it holds, the answer serialised by its response schema
// (fast-json-stringify). Not exact beyond 2^53 (JSON.parse), which the kit is: the cost of that is
// part of what the bench shows.
//
// `--log line FILE`, `--log default FILE`: with a log of its requests in FILE (else none), the anchor
// of `serve`'s log lines.
// - line: one line an answer with its method, URL, status and time (and pino's level, time, pid,
//   host and request id), from a hook on its answers with Fastify's own request lines off (its
//   documented way), through pino's asynchronous destination with a 4 KB buffer (pino's advice for
//   throughput).
// - default: what `logger: true` writes (two lines a request, pino's default asynchronous
//   destination), through Fastify's own `logger.file` option: the bench reads this process's stdout.
const TOKEN = process.env.PLANTSTORE_BENCH_TOKEN ?? "bench-token-0123456789";
const args = process.argv.slice(2);
const [flag, mode, file] = args;
const known = args.length === 0 || (args.length === 3 && flag === "--log" && (mode === "line" || mode === "default"));
if (!known) throw new Error(`usage: fastify-server.js [--log line|default FILE], not ${args.join(" ")}`);

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
    const { method, url } = req;
    reply.log.info({ method, url, statusCode: reply.statusCode, responseTime: reply.elapsedTime }, "request completed");
    done();
  });

app.listen({ port: 0, host: "127.0.0.1" }).then((address) => {
  process.stdout.write(`listening on ${address}\n`);
});
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));

function options(): FastifyServerOptions {
  if (file === undefined) return { logger: false };
  if (mode === "default") return { logger: { file } };
  // The pino Fastify itself depends on (the older pino at the top of node_modules is Prism's).
  const pino: typeof import("fastify/node_modules/pino") = createRequire(import.meta.resolve("fastify"))("pino");
  const stream = pino.destination({ dest: file, sync: false, minLength: 4096 });
  const logController = new LogController({ disableRequestLogging: true });
  return { loggerInstance: pino({}, stream), logController };
}
