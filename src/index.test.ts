import { expect, it } from "vitest";
import * as kit from "./index.js";

// The package's runtime surface, name by name: adding, renaming or removing an export is a visible
// change to this list (and a breaking one for users when it removes or renames).
it("exports exactly the public names", () => {
  expect(Object.keys(kit).sort()).toEqual([
    "CHECKS",
    "DEFAULT_FIXTURES",
    "DEFAULT_SPEC",
    "DEV_TOKEN",
    "KIT_ERRORS",
    "KitError",
    "LEVELS",
    "PROXY_DEFAULTS",
    "RUN_DEFAULTS",
    "checkRequest",
    "checkResponse",
    "consoleReporter",
    "createMockHandler",
    "createPlantStoreHandler",
    "htmlReport",
    "jsonReport",
    "junitReport",
    "loadBaseline",
    "loadContract",
    "markdownReport",
    "resourceModel",
    "runConformance",
    "startMockServer",
    "startPrism",
    "startProxy",
    "startReferenceServer",
    "verifyCertificate",
  ]);
});
