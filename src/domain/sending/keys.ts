// DKIM keys of sending domains: 2048-bit RSA (what Gmail and Yahoo expect; 1024 is weak, 4096 does not fit
// many DNS providers' TXT fields), a selector chosen here, the private key sealed under the instance secret.
import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export interface DkimKey {
  selector: string;
  /** base64 SubjectPublicKeyInfo: the p= of the DKIM record */
  publicKey: string;
  /** PKCS#8 PEM */
  privateKey: string;
}

/** A fresh key and selector. The selector is random, so each account's record for a domain is its own. */
export async function newDkimKey(): Promise<DkimKey> {
  const { publicKey, privateKey } = await generate('rsa', { modulusLength: 2048 });
  return {
    selector: `mg${randomBytes(4).toString('hex')}`,
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The DKIM TXT record's value for a public key. */
export function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`;
}

/** True when the PEM a DNS answer yields (any RSA encoding) is the same key as `publicKey` (base64 SPKI). */
export function sameKey(publicKey: string, foundPem: string): boolean {
  try {
    const ours = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return ours.equals(createPublicKey(foundPem));
  } catch {
    return false;
  }
}

/** Whether a PEM is a private key node can sign with (a sealed value that was altered is not). */
export function usablePrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}
