import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { KitError } from "../../errors.js";
import { jsonErrorReport } from "./json.js";
import { junitErrorReport, junitXml } from "./junit.js";

const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);

describe("the reports of a run that could not start", () => {
  it("JUnit: one test case with an error carrying the code, escaped as every other report is", () => {
    const error = new KitError("PS_TARGET_UNREACHABLE", `http://t?a=1&b=<2> "quoted" 'single'\u0007`);
    const xml = junitErrorReport(error);
    expect(xml.split("\n").slice(0, 2)).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<testsuites name="plantstore conformance" tests="1" failures="0" errors="1">',
    ]);
    const suites = parse(xml).testsuites;
    expect(suites).toMatchObject({ tests: "1", failures: "0", errors: "1" });
    expect(suites.testsuite.testcase).toMatchObject({ classname: "conformance", name: "run" });
    expect(suites.testsuite.testcase.error.type).toBe("PS_TARGET_UNREACHABLE");
    // Escaped as the JUnit report of a finished run is: markup characters, and a control character XML cannot carry.
    expect(xml).toContain("&amp;b=&lt;2&gt; &quot;quoted&quot; &apos;single&apos;\ufffd");
  });

  it("JSON: the code and the message", () => {
    const error = new KitError("PS_USAGE", "--timeout must be an integer");
    expect(JSON.parse(jsonErrorReport(error))).toEqual({
      tool: "plantstore-kit conformance",
      format: 1,
      error: { code: "PS_USAGE", message: "the command line is not valid: --timeout must be an integer" },
    });
  });
});

describe("junitXml, the one JUnit writer of the run's reports and the proxy's", () => {
  it("writes the counts given, in order, a case's parts in JUnit's order, and escapes every text", () => {
    const xml = junitXml({
      name: "suites <&>",
      suite: 'suite "1"',
      counts: { tests: 2, failures: 1, errors: 0, timeMs: 1500 },
      properties: [["p&", "v<"]],
      cases: [
        {
          classname: "c",
          name: "a",
          timeMs: 2,
          failure: { message: "m'", type: "t", text: "x\u0007" },
          systemOut: "o",
        },
        { classname: "c", name: "b", skipped: { message: "known" } },
      ],
      systemErr: "e>",
    });
    expect(xml.split("\n")).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<testsuites name="suites &lt;&amp;&gt;" tests="2" failures="1" errors="0" time="1.500">',
      '  <testsuite name="suite &quot;1&quot;" tests="2" failures="1" errors="0" time="1.500">',
      '    <properties><property name="p&amp;" value="v&lt;"/></properties>',
      '    <testcase classname="c" name="a" time="0.002"><failure message="m&apos;" type="t">x\ufffd</failure><system-out>o</system-out></testcase>',
      '    <testcase classname="c" name="b"><skipped message="known"/></testcase>',
      "    <system-err>e&gt;</system-err>",
      "  </testsuite>",
      "</testsuites>",
      "",
    ]);
    expect(parse(xml).testsuites.testsuite.testcase).toHaveLength(2);
  });
});
