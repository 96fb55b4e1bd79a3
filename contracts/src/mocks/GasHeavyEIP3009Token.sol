// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {MockEIP3009Token} from "./MockEIP3009Token.sol";

/// @title GasHeavyEIP3009Token
/// @notice The USDC-shaped test token with a configurable amount of extra work on every balance change:
/// a pay token whose transfers cost far more gas than the usual one (test only: the relayer's gas
/// limits must be kept per pay token).
contract GasHeavyEIP3009Token is MockEIP3009Token {
    /// @notice Hash rounds burned on every balance change.
    uint256 public immutable EXTRA_WORK;
    bytes32 private _sink;

    constructor(string memory name_, string memory version_, uint256 extraWork_) MockEIP3009Token(name_, version_) {
        EXTRA_WORK = extraWork_;
    }

    /// @dev Burns `EXTRA_WORK` keccak rounds, then moves the balance as usual.
    function _update(address from, address to, uint256 value) internal override {
        bytes32 sink = _sink;
        for (uint256 i = 0; i < EXTRA_WORK; ++i) {
            sink = keccak256(abi.encode(sink, i));
        }
        _sink = sink;
        super._update(from, to, value);
    }
}
