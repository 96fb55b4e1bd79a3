// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title DSTest (the part forge-std's Test.sol uses)
/// @notice The npm `forge-std` package imports `ds-test/test.sol` but does not ship it, and there is no
/// ds-test package on npm; foundry.toml maps `ds-test/` here. This is our own minimal stand-in: the log
/// events forge prints, the `IS_TEST` marker, and assertions. A failed assertion reverts with its
/// message (forge counts a reverting test as failed; no `failed` flag to poll).
abstract contract DSTest {
    event log(string);
    event log_named_string(string key, string val);
    event log_named_uint(string key, uint256 val);
    event log_named_int(string key, int256 val);
    event log_named_decimal_uint(string key, uint256 val, uint256 decimals);
    event log_named_address(string key, address val);
    event log_named_bytes32(string key, bytes32 val);

    bool public IS_TEST = true;

    /// @notice Always false: a failure reverts instead of setting a flag.
    function failed() public pure returns (bool) {
        return false;
    }

    function fail() internal pure virtual {
        revert("assertion failed");
    }

    function assertTrue(bool condition) internal pure {
        if (!condition) revert("assertion failed: expected true");
    }

    function assertTrue(bool condition, string memory err) internal pure {
        if (!condition) revert(err);
    }

    function assertEq(uint256 a, uint256 b) internal pure {
        if (a != b) revert(string.concat("assertEq(uint) failed: ", _u(a), " != ", _u(b)));
    }

    function assertEq(uint256 a, uint256 b, string memory err) internal pure {
        if (a != b) revert(string.concat(err, ": ", _u(a), " != ", _u(b)));
    }

    function assertEq(int256 a, int256 b) internal pure {
        if (a != b) revert("assertEq(int) failed");
    }

    function assertEq(address a, address b) internal pure {
        if (a != b) revert("assertEq(address) failed");
    }

    function assertEq(address a, address b, string memory err) internal pure {
        if (a != b) revert(err);
    }

    function assertEq(bytes32 a, bytes32 b) internal pure {
        if (a != b) revert("assertEq(bytes32) failed");
    }

    function assertEq(string memory a, string memory b) internal pure {
        if (keccak256(bytes(a)) != keccak256(bytes(b))) revert(string.concat("assertEq(string) failed: ", a, " != ", b));
    }

    function assertEq0(bytes memory a, bytes memory b) internal pure {
        if (keccak256(a) != keccak256(b)) revert("assertEq(bytes) failed");
    }

    function assertEq0(bytes memory a, bytes memory b, string memory err) internal pure {
        if (keccak256(a) != keccak256(b)) revert(err);
    }

    function assertLe(uint256 a, uint256 b) internal pure {
        if (a > b) revert(string.concat("assertLe failed: ", _u(a), " > ", _u(b)));
    }

    function _u(uint256 value) private pure returns (string memory) {
        if (value == 0) return "0";
        bytes memory digits;
        for (; value != 0; value /= 10) digits = bytes.concat(bytes1(uint8(48 + value % 10)), digits);
        return string(digits);
    }
}
