// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {MockEIP3009Token} from "./MockEIP3009Token.sol";

/// @title FalseReturnToken
/// @notice A MockEIP3009Token whose `transfer` returns false without moving anything, so the broker's
/// payout fails with `SafeERC20FailedOperation(token)`. Authorizations still work (they use `_transfer`).
contract FalseReturnToken is MockEIP3009Token {
    constructor(string memory name_, string memory version_) MockEIP3009Token(name_, version_) {}

    /// @notice Always returns false and moves nothing.
    function transfer(address, uint256) public pure override returns (bool) {
        return false;
    }
}
