// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {MockEIP3009Token} from "../../src/mocks/MockEIP3009Token.sol";

/// @notice A MockEIP3009Token that reverts on a zero-value transfer, as many real tokens do.
contract ZeroTransferRevertingToken is MockEIP3009Token {
    error ZeroTransfer();

    constructor() MockEIP3009Token("Zero-Refusing USD", "1") {}

    function transfer(address to, uint256 value) public override returns (bool) {
        if (value == 0) revert ZeroTransfer();
        return super.transfer(to, value);
    }
}
