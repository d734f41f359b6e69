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
