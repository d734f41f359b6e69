// What the resource model (src/contract/resources.ts) finds in real documents: for each corpus
// document (test/corpus.ts), how many operations get a role, how many resources, lists, ids found by
// the document (x-plantstore-id, a link, the parameter's name) or guessed, and items with no id.
//   npm run build && node dist/bench/resource-model.js [NAME ...]
// Prints a Markdown table (docs/resources.md keeps the last one). Not a test: nothing here asserts.

import { loadContract, resourceModel } from "../src/contract/index.js";
import { CORPUS, corpusDocuments } from "../test/corpus.js";

const names = process.argv.slice(2);
const documents = names.length > 0 ? corpusDocuments(names) : CORPUS;
console.log("| document | operations | with a role | resources | lists | ids found | ids guessed | items without id |");
console.log("|---|---|---|---|---|---|---|---|");
for (const d of documents) {
  const contract = await loadContract(d.file);
  const model = resourceModel(contract);
  const roled = contract.operations.filter((o) => model.roleOf(o) !== undefined).length;
  const items = model.resources.filter((r) => r.itemPath !== undefined);
  const found = items.filter((r) => r.id !== undefined && !r.id.guessed).length;
  const guessed = items.filter((r) => r.id?.guessed === true).length;
  const lists = model.resources.filter((r) => r.list !== undefined).length;
  const cells = [d.name, contract.operations.length, roled, model.resources.length, lists, found, guessed];
  console.log(`| ${[...cells, items.length - found - guessed].join(" | ")} |`);
}
