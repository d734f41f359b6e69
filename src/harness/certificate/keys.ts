// The keys certificates are signed and verified with: an HMAC shared secret or an Ed25519 key pair,
// read and checked so that an error never quotes a key, and named by a key id that reveals nothing.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { KitError } from "../../errors.js";
import { sha256 } from "./canonical-json.js";

/** A key to sign with: an HMAC shared secret, or an Ed25519 private key. */
export type SigningKey =
  { readonly kind: "hmac"; readonly secret: string } | { readonly kind: "ed25519"; readonly privateKey: KeyObject };

/** An Ed25519 private key from PEM (PKCS#8); a PS_USAGE error that never quotes the key otherwise. */
export function signingKeyFromPem(pem: string, where: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new KitError("PS_USAGE", `${where}: not a PEM private key (an unencrypted PKCS#8 "PRIVATE KEY")`);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new KitError(
      "PS_USAGE",
      `${where}: a ${key.asymmetricKeyType ?? "unknown"} key; certificates are signed with Ed25519`,
    );
  }
  return { kind: "ed25519", privateKey: key };
}

/** An HMAC shared secret; at least 16 characters, so that it cannot be guessed from a signature. */
export function hmacKey(secret: string, where: string): SigningKey {
  if (secret.length < 16) {
    throw new KitError(
      "PS_USAGE",
      `${where}: the shared key must have at least 16 characters (32 random bytes in hex is best)`,
    );
  }
  return { kind: "hmac", secret };
}

/** An Ed25519 public key from PEM (SPKI; a private key's PEM gives its public key too). */
export function publicKeyFromPem(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new KitError("PS_USAGE", `${where}: not a PEM public key`);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new KitError(
      "PS_USAGE",
      `${where}: a ${key.asymmetricKeyType ?? "unknown"} key; certificates are signed with Ed25519`,
    );
  }
  return key;
}

/** 16 hex digits naming a key: of the public key's SPKI bytes, or of the shared secret (in a domain of its own). */
export function keyId(key: SigningKey | KeyObject | string): string {
  if (typeof key === "string") return sha256(`plantstore-kit certificate hmac key\n${key}`).slice(0, 16);
  if ("kind" in key) return key.kind === "hmac" ? keyId(key.secret) : keyId(createPublicKey(key.privateKey));
  return createHash("sha256")
    .update(key.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}
