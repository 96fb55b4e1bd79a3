// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title IEIP3009
/// @notice The part of EIP-3009 (transfer with authorization) the broker uses.
interface IEIP3009 {
    /// @notice Moves `value` from `from` to the caller, who must be `to`, on `from`'s signed authorization.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}
