// A server thread for src/cli/server-thread.test.ts: says what it was given, waits for its signal.
// It prints through Node's own streams, which the process's thread passes on.
import { getHeapSpaceStatistics } from "node:v8";
import { parentPort, resourceLimits, workerData } from "node:worker_threads";

const [command] = workerData.argv;
if (command === "throw") setTimeout(() => Promise.reject(new Error("a failure no one caught")));
else if (command === "throw-null")
  setTimeout(() => {
    throw null;
  });
else {
  const { maxYoungGenerationSizeMb } = resourceLimits;
  // The young generation's size as the heap was made (nothing collected yet), in MB.
  const newSpace = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
  const newSpaceMb = newSpace.space_size / (1024 * 1024);
  process.stdout.write(`${JSON.stringify({ argv: workerData.argv, maxYoungGenerationSizeMb, newSpaceMb })}\n`);
  parentPort.once("message", (signal) => {
    process.stderr.write(`stopped by ${signal}\n`);
    process.exitCode = 3;
  });
}
