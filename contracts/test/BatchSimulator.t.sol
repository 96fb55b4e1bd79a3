// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Test} from "forge-std/Test.sol";
import {BatchSimulator} from "../src/offchain/BatchSimulator.sol";

/// @dev A target whose calls write storage, revert with data, or burn all their gas.
contract Counter {
    error TooMany(uint256 count);

    uint256 public count;
    address public lastCaller;

    function bump(uint256 limit) external {
        if (count >= limit) revert TooMany(count);
        count += 1;
        lastCaller = msg.sender;
    }

    function burn() external pure {
        while (true) {}
    }
}

/// @notice BatchSimulator runs every call alone (nothing stays), as its own address, with the gas asked.
contract BatchSimulatorTest is Test {
    BatchSimulator internal simulator;
    Counter internal counter;

    function setUp() public {
        simulator = new BatchSimulator();
        counter = new Counter();
    }

    function _decode(bytes memory result) private pure returns (bool ok, uint256 gasUsed, bytes memory out) {
        return abi.decode(result, (bool, uint256, bytes));
    }

    function test_eachCallRunsAloneAndNothingStays() public {
        bytes[] memory calls = new bytes[](3);
        uint256[] memory gas = new uint256[](3);
        for (uint256 i; i < 3; ++i) {
            calls[i] = abi.encodeCall(Counter.bump, (1));
            gas[i] = 100_000;
        }
        bytes[] memory results = simulator.simulate(address(counter), calls, gas);
        // Each saw count 0: the one before it was undone, so each used the same gas (two fresh slots written).
        (, uint256 first,) = _decode(results[0]);
        assertTrue(first > 40_000 && first < 100_000);
        for (uint256 i; i < 3; ++i) {
            (bool ok, uint256 used,) = _decode(results[i]);
            assertTrue(ok);
            assertEq(used, first);
        }
        assertEq(counter.count(), 0);
        assertEq(counter.lastCaller(), address(0));
    }

    function test_revertDataAndOutOfGasAreReported() public {
        counter.bump(1);
        bytes[] memory calls = new bytes[](2);
        uint256[] memory gas = new uint256[](2);
        calls[0] = abi.encodeCall(Counter.bump, (1));
        gas[0] = 100_000;
        calls[1] = abi.encodeCall(Counter.burn, ());
        gas[1] = 50_000;
        uint256 before = gasleft();
        bytes[] memory results = simulator.simulate(address(counter), calls, gas);
        (bool ok, uint256 used, bytes memory out) = _decode(results[0]);
        assertFalse(ok);
        assertEq(out, abi.encodeWithSelector(Counter.TooMany.selector, 1));
        assertTrue(used < 100_000);
        (ok, used, out) = _decode(results[1]);
        assertFalse(ok);
        assertEq(out.length, 0);
        // Out of gas: it used all it was given, and the call's own cost beside it.
        assertTrue(used >= 50_000 && used < 60_000);
        // The burning call had its 50,000 and no more.
        assertLe(before - gasleft(), 200_000);
    }

    function test_tooLittleGasForAnAttemptIsAShortResult() public {
        bytes[] memory calls = new bytes[](1);
        uint256[] memory gas = new uint256[](1);
        calls[0] = abi.encodeCall(Counter.bump, (1));
        gas[0] = 1_000_000;
        bytes[] memory results = simulator.simulate{gas: 300_000}(address(counter), calls, gas);
        // Not an `(ok, gasUsed, out)` triple: the relayer simulates that order in its own call.
        assertEq(results[0], abi.encodeWithSelector(BatchSimulator.BatchOutOfGas.selector));
    }
}
