// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Broker} from "../Broker.sol";
import {IAdapter} from "../interfaces/IAdapter.sol";
import {Order} from "../Order.sol";

/// @title ReentrantAdapter
/// @notice An adapter that calls back into the broker from `grant`, so settlement reverts with
/// `ReentrancyGuardReentrantCall()`.
contract ReentrantAdapter is IAdapter {
    // ---------------------------------------------------------------- storage

    /// @notice The broker re-entered.
    Broker public immutable broker;

    // ---------------------------------------------------------------- functions

    constructor(address broker_) {
        broker = Broker(broker_);
    }

    /// @notice Re-enters the broker with a dummy order; the revert bubbles up unchanged.
    function grant(bytes32, address, address, address, uint256, bytes calldata) external returns (bytes memory) {
        Order memory dummy;
        return broker.broker(dummy, 0, 0, 0, bytes32(0), bytes32(0));
    }
}
