// A certificate's tamper evidence over its canonical JSON: a plain sha256 digest, an HMAC-SHA256 with
// a shared key, or an Ed25519 signature; made when a certificate is built, checked when it is verified.
import { createHmac, sign, timingSafeEqual, verify, type KeyObject } from "node:crypto";
import { canonicalJson, sha256 } from "./canonical-json.js";
import { keyId, type SigningKey } from "./keys.js";

export type SignatureAlg = "sha256" | "hmac-sha256" | "ed25519";

/** The tamper evidence: a digest (no key), an HMAC (shared key) or an Ed25519 signature (private key). */
export interface CertificateSignature {
  readonly alg: SignatureAlg;
  /** Which key signed: 16 hex digits of a sha256 of the key (of the public key for Ed25519); never the key. */
  readonly keyId?: string;
  /** Hex for sha256 and hmac-sha256, base64 for ed25519. */
  readonly value: string;
}

/**
 * What is signed: the canonical JSON of the certificate with `signature.value` left out. The
 * algorithm and the key id are covered, so neither can be swapped without breaking the value.
 */
export function signedText(certificate: Record<string, unknown>): string {
  const signature = certificate.signature as Record<string, unknown> | undefined;
  const header =
    signature !== null && typeof signature === "object"
      ? Object.fromEntries(Object.entries(signature).filter(([k]) => k !== "value"))
      : signature;
  return canonicalJson({ ...certificate, signature: header });
}

/** The tamper evidence of a certificate's body (everything but the signature). */
export function signCertificate(body: object, key: SigningKey | undefined): CertificateSignature {
  const header =
    key === undefined
      ? { alg: "sha256" as const }
      : { alg: key.kind === "hmac" ? ("hmac-sha256" as const) : ("ed25519" as const), keyId: keyId(key) };
  const text = signedText({ ...body, signature: header });
  if (key === undefined) return { ...header, value: sha256(text) };
  if (key.kind === "hmac")
    return { ...header, value: createHmac("sha256", key.secret).update(text, "utf8").digest("hex") };
  return { ...header, value: sign(null, Buffer.from(text, "utf8"), key.privateKey).toString("base64") };
}

const SIGNATURE_ALGS: readonly string[] = ["sha256", "hmac-sha256", "ed25519"];

/** The keys a verifier holds: the shared key of an HMAC, the public key of an Ed25519 signature. */
export interface VerifierKeys {
  readonly hmac: string | undefined;
  readonly publicKey: KeyObject | undefined;
}

/**
 * The check of a certificate's tamper evidence: its problems (none when it holds), or, when it was
 * signed with a kind of key the verifier did not give at all, the one line saying which key is needed.
 */
export type SignatureCheck = { readonly problems: readonly string[] } | { readonly keyNeeded: string };

/** Checks the tamper evidence of a certificate's data (any JSON object) with the keys the verifier holds. */
export function checkSignature(data: Record<string, unknown>, keys: VerifierKeys): SignatureCheck {
  const signature = data.signature as Record<string, unknown> | null | undefined;
  if (
    signature === null ||
    typeof signature !== "object" ||
    typeof signature.alg !== "string" ||
    !SIGNATURE_ALGS.includes(signature.alg) ||
    typeof signature.value !== "string"
  ) {
    return {
      problems: [
        `signature: missing or not as the kit writes it (alg one of ${SIGNATURE_ALGS.join(", ")}, and a value)`,
      ],
    };
  }
  const signed = signedText(data);
  const stated = { value: signature.value, keyId: signature.keyId };
  if (signature.alg === "sha256") return checkDigest(stated.value, signed, keys);
  if (signature.alg === "hmac-sha256") return checkHmac(stated, signed, keys);
  return checkEd25519(stated, signed, keys);
}

interface StatedSignature {
  readonly value: string;
  readonly keyId: unknown;
}

const keyIdNote = (stated: StatedSignature): string =>
  typeof stated.keyId === "string" ? ` (key id ${stated.keyId})` : "";

function checkDigest(value: string, signed: string, keys: VerifierKeys): SignatureCheck {
  const problems: string[] = [];
  if (!sameText(value, sha256(signed)))
    problems.push(`signature: the digest does not match the content: the certificate was edited`);
  if (keys.hmac !== undefined || keys.publicKey !== undefined) {
    problems.push(
      `signature: a plain sha256 digest, but a key was given: anyone can recompute a digest, so nothing shows who wrote this certificate (was its signature replaced?)`,
    );
  }
  return { problems };
}

function checkHmac(stated: StatedSignature, signed: string, keys: VerifierKeys): SignatureCheck {
  const id = keyIdNote(stated);
  const hmac = keys.hmac;
  if (hmac === undefined) {
    if (keys.publicKey !== undefined) {
      return {
        problems: [
          `signature: signed with hmac-sha256${id}, but a public key was given: the certificate is not signed by that key's holder`,
        ],
      };
    }
    return {
      keyNeeded: `signature: signed with hmac-sha256${id}; set PLANTSTORE_CERTIFICATE_KEY to the shared key to verify it`,
    };
  }
  if (sameText(stated.value, createHmac("sha256", hmac).update(signed, "utf8").digest("hex"))) return { problems: [] };
  return {
    problems: [
      stated.keyId === keyId(hmac)
        ? `signature: the HMAC does not match the content: the certificate was edited`
        : `signature: the HMAC does not match: signed with another key${id} than the one given (key id ${keyId(hmac)}), or edited`,
    ],
  };
}

function checkEd25519(stated: StatedSignature, signed: string, keys: VerifierKeys): SignatureCheck {
  const id = keyIdNote(stated);
  const publicKey = keys.publicKey;
  if (publicKey === undefined) {
    if (keys.hmac !== undefined) {
      return {
        problems: [
          `signature: signed with ed25519${id}, but a shared HMAC key was given: the certificate is not signed with that key`,
        ],
      };
    }
    return {
      keyNeeded: `signature: signed with ed25519${id}; give the signer's public key (--public-key FILE) to verify it`,
    };
  }
  if (verify(null, Buffer.from(signed, "utf8"), publicKey, Buffer.from(stated.value, "base64")))
    return { problems: [] };
  return {
    problems: [
      stated.keyId === keyId(publicKey)
        ? `signature: the Ed25519 signature does not match the content: the certificate was edited`
        : `signature: the Ed25519 signature does not match: signed by another key${id} than the one given (key id ${keyId(publicKey)}), or edited`,
    ],
  };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}
