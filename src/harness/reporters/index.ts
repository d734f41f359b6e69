// The reporters' face: the console's reporter and the report files' formats and writers. The rest
// of the kit imports this file, never the modules behind it.
export { consoleReporter, summaryLines, visible } from "./console.js";
export { REPORT_FORMATS, checkWritable, reportFiles, reporters, writeErrorReports, writeReports } from "./files.js";
export type { ReportFile, ReportFormat, ReportFormatName, Reporter } from "./files.js";
export { htmlErrorReport, htmlReport } from "./html.js";
export { jsonDocument, jsonErrorReport, jsonReport } from "./json.js";
export { junitErrorReport, junitReport, junitXml } from "./junit.js";
export type { JUnitCase } from "./junit.js";
export { markdownErrorReport, markdownReport } from "./markdown.js";
