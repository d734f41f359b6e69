import Fastify, { type FastifyError } from "fastify";
import { ERROR, NEW_PLANT } from "./plant-schemas.js";

// The anchor: what a team would write by hand for the Plant Store's create with Fastify 5. The bearer
// token checked, the body validated by its JSON Schema (Fastify compiles it with Ajv), a Map store
// that answers 409 for an id it holds, the answer serialised by its response schema
// (fast-json-stringify). Not exact beyond 2^53 (JSON.parse), which the kit is: the cost of that is
// part of what the bench shows.
const TOKEN = process.env.PLANTSTORE_BENCH_TOKEN ?? "bench-token-0123456789";

const app = Fastify({ logger: false });
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

app.listen({ port: Number(process.argv[2] ?? 0), host: "127.0.0.1" }).then((address) => {
  process.stdout.write(`listening on ${address}\n`);
});
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
