// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IAdapter} from "../interfaces/IAdapter.sol";

/// @title TrapAdapter
/// @notice An adapter whose orders pass any simulation made while it is disarmed and revert with
/// `Trapped()` once armed: a test arms it in the same block, ahead of a relayer's transaction, to
/// make an order that passed simulation revert on chain.
contract TrapAdapter is IAdapter {
    // ---------------------------------------------------------------- errors

    /// @dev The adapter was armed: every grant reverts.
    error Trapped();

    // ---------------------------------------------------------------- events

    /// @notice A grant went through while disarmed.
    event TrapPassed(bytes32 indexed orderHash, address consumer);

    // ---------------------------------------------------------------- storage

    /// @notice While true, `grant` reverts.
    bool public armed;

    // ---------------------------------------------------------------- functions

    /// @notice Arms (true) or disarms (false) the trap.
    function setArmed(bool armed_) external {
        armed = armed_;
    }

    /// @notice Reverts `Trapped()` while armed; otherwise grants nothing and logs the order.
    function grant(bytes32 orderHash, address consumer, address, address, uint256, bytes calldata) external returns (bytes memory) {
        if (armed) revert Trapped();
        emit TrapPassed(orderHash, consumer);
        return abi.encode(orderHash);
    }
}
