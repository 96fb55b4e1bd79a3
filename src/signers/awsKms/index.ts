// The gas key in AWS KMS (RELAYER_KMS_KEY_ID): an ECC_SECG_P256K1 key that signs each tx's digest.
export { type AwsKmsSignerOptions, createAwsKmsSigner } from './createAwsKmsSigner.ts'
export { readAwsKmsOptions } from './readAwsKmsOptions.ts'
export { isKmsKeyId, regionOfKeyArn } from './keyIdFormat.ts'
