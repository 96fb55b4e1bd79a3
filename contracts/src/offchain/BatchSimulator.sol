// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title BatchSimulator
/// @notice Never deployed. The relayer puts this runtime code at its own gas address with an
/// `eth_call` state override and calls itself, so one call against the `pending` block
/// simulates many orders: each broker call runs with the relayer as `msg.sender` and
/// `tx.origin`, as its transaction would, and each runs alone, its state changes (and its
/// warm accounts and slots) undone before the next. A node that builds its pending block
/// for every call (anvil executes its whole pool each time) then builds it once per batch.
contract BatchSimulator {
    /// @dev `attempt` did not have the gas its caller asked for: the outer call was too small.
    error BatchOutOfGas();

    /// @notice Runs `calls[i]` against `target` with `gas[i]` gas each, in isolation.
    /// @return results `abi.encode(bool ok, uint256 gasUsed, bytes returnOrRevertData)` per call, or something
    /// shorter (`BatchOutOfGas()`, or nothing) when the attempt itself could not run: the
    /// caller simulates that one in its own call.
    function simulate(address target, bytes[] calldata calls, uint256[] calldata gas) external returns (bytes[] memory results) {
        results = new bytes[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            // `attempt` always reverts, so nothing it did stays; its revert data is the result.
            (bool returned, bytes memory result) = address(this).call(abi.encodeCall(this.attempt, (target, calls[i], gas[i])));
            if (!returned) results[i] = result;
        }
    }

    /// @notice Calls `target` with exactly `gas` gas, then reverts with what happened and the
    /// gas the call took (the CALL's own cost included, refunds not taken off: at least what
    /// the same call costs as a transaction's execution).
    function attempt(address target, bytes calldata data, uint256 gas) external {
        // CALL silently passes on less than asked when less than 64/64 is left: refuse instead.
        if (gasleft() < gas + gas / 63 + 10_000) revert BatchOutOfGas();
        uint256 before = gasleft();
        (bool ok, bytes memory out) = target.call{gas: gas}(data);
        uint256 used = before - gasleft();
        bytes memory packed = abi.encode(ok, used, out);
        assembly ("memory-safe") {
            revert(add(packed, 32), mload(packed))
        }
    }
}
