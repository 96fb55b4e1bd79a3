/**
 * The forms KMS accepts for a key: a key id (a UUID, or `mrk-` and 32 hex digits for a
 * multi-Region key), a key ARN, an alias name (`alias/…`) or an alias ARN.
 */
const keyIdPattern = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32}|alias\/[A-Za-z0-9/_-]{1,250})$/
const keyArnPattern = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):\d{12}:(?:key\/(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})|alias\/[A-Za-z0-9/_-]{1,250})$/

/** True when `keyId` is a key id, key ARN, alias name or alias ARN. */
export function isKmsKeyId(keyId: string): boolean {
  return keyIdPattern.test(keyId) || keyArnPattern.test(keyId)
}

/**
 * The region a key ARN or alias ARN names (KMS keys live in one region), or undefined for a
 * key id or alias name (the AWS SDK's region applies).
 *
 * @example
 * regionOfKeyArn('arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab') // 'eu-west-1'
 */
export function regionOfKeyArn(keyId: string): string | undefined {
  return keyArnPattern.exec(keyId)?.[1]
}
