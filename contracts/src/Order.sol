// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice A consumer's order: pay `amount` of `payToken` to `payee` (minus the relayer's
/// `feeBps`) and let `adapter` grant the right described by `params`.
/// @dev Its hash, `keccak256(abi.encode(order))`, is the EIP-3009 authorization nonce.
struct Order {
    address consumer;
    address adapter;
    bytes params;
    address payToken;
    address payee;
    uint256 amount;
    uint256 nonce;
    uint16 feeBps;
}
