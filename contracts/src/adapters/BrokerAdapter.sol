// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IAdapter} from "../interfaces/IAdapter.sol";

/// @title BrokerAdapter
/// @notice What every adapter shares: only the broker may `grant`, an owner administers it,
/// and a zero address is refused with `ZeroAddress()` at construction and in admin calls.
abstract contract BrokerAdapter is IAdapter, Ownable {
    // ---------------------------------------------------------------- errors

    /// @dev `grant` was called by something other than the broker.
    error NotBroker();
    /// @dev A required address argument was zero.
    error ZeroAddress();

    // ---------------------------------------------------------------- storage

    /// @notice The only caller allowed to `grant`.
    address public immutable broker;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address owner_) Ownable(_nonZero(owner_)) {
        broker = _nonZero(broker_);
    }

    /// @dev Reverts `NotBroker()` unless the broker is calling.
    modifier onlyBroker() {
        if (msg.sender != broker) revert NotBroker();
        _;
    }

    /// @notice Hands the adapter to `newOwner`; a zero address reverts `ZeroAddress()`.
    function transferOwnership(address newOwner) public override onlyOwner {
        super.transferOwnership(_nonZero(newOwner));
    }

    /// @dev `account`, or a `ZeroAddress()` revert when it is zero. It wraps the owner given to
    /// `Ownable`, whose constructor runs first and would otherwise answer `OwnableInvalidOwner`.
    function _nonZero(address account) internal pure returns (address) {
        if (account == address(0)) revert ZeroAddress();
        return account;
    }
}
