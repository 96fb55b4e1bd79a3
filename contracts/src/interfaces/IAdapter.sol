// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title IAdapter
/// @notice What the broker calls, after payment, to grant the right an order buys.
interface IAdapter {
    /// @notice Grants the right described by `params` to `consumer` for the paid order `orderHash`.
    /// @dev Only the broker may call it; a revert undoes the whole settlement. `payToken`, `payee` and
    /// `amount` are what the order paid (the payee received `amount` minus the relayer's fee), so the
    /// adapter can refuse an order that did not pay its price to its payee in its token.
    /// @return receipt Adapter-specific ABI-encoded result.
    function grant(
        bytes32 orderHash,
        address consumer,
        address payToken,
        address payee,
        uint256 amount,
        bytes calldata params
    ) external returns (bytes memory receipt);
}
