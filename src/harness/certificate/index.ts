// The certificate wing's face: building, signing, writing and verifying a run's certificate. The
// rest of the kit imports this file, never the modules behind it.
export { canonicalJson } from "./canonical-json.js";
export { buildCertificate, writeCertificate } from "./certificate.js";
export type { Certificate, CertificateInput } from "./certificate.js";
export { describeBaseline, describeContract, describeFixtures } from "./inputs.js";
export { hmacKey, publicKeyFromPem, signingKeyFromPem } from "./keys.js";
export type { SigningKey } from "./keys.js";
export { certificateLines, signatureMeaning } from "./lines.js";
export { verifyCertificate } from "./verify.js";
export type { VerifyOptions, VerifyResult } from "./verify.js";
