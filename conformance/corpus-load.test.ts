import { describe, expect, it } from "vitest";
import { loadContract } from "../src/contract/index.js";
import { CORPUS } from "../test/corpus.js";

// Every public document of the corpus (test/data/corpus, and GitHub's from @octokit/openapi) loads,
// with every operation it has; corpus.test.ts runs some of them against Prism. A file of its own, so
// the two run side by side.
describe("the corpus of public documents", () => {
  it.each(CORPUS.map((d) => [d.name, d] as const))(
    "%s loads, with every operation the document has",
    async (_name, doc) => {
      const contract = await loadContract(doc.file);
      expect(contract.operations).toHaveLength(doc.operations);
      // A construct left out is said with its pointer, never silently: each note names one.
      for (const note of contract.notes) expect(note.pointer).toMatch(/^\//);
    },
    180_000,
  );
});
