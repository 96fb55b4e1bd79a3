/**
 * Seconds a transaction may need to land: an authorization that closes sooner than this
 * after the time a tx sent now is mined is refused (AUTH_EXPIRED), when the order comes
 * (steps/checkAuthorizationWindow.ts) and again when its batch is signed (submitter/batchSender.ts).
 */
export const authorizationSafetyMarginSeconds = 2n
