import { loadContract, type Contract } from "../src/contract/index.js";
import { DEFAULT_SPEC } from "../src/paths.js";

let contract: Promise<Contract> | undefined;

/** The kit's contract, loaded once per test file. */
export function kitContract(): Promise<Contract> {
  contract ??= loadContract(DEFAULT_SPEC);
  return contract;
}

export const TOKEN = "test-token-7f3a9c";

export const jsonHeaders = (token: string | undefined = TOKEN): Record<string, string> => ({
  "content-type": "application/json",
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
});

/** Runs `fn` against a fresh reference server on port 0 (token TOKEN), and stops the server after. */
export async function withReference<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const { startReferenceServer } = await import("../src/server/index.js");
  const server = await startReferenceServer({ contract: await kitContract(), port: 0, tokens: [TOKEN] });
  try {
    return await fn(server.url);
  } finally {
    await server.close(100);
  }
}
