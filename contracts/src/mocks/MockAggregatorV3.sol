// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title MockAggregatorV3
/// @notice Stands in for a Chainlink price feed: the five values `latestRoundData()` returns
/// (AggregatorV3Interface) are set directly, so a test can make the answer stale, zero or
/// negative.
contract MockAggregatorV3 {
    // ---------------------------------------------------------------- storage

    /// @notice Decimals of `answer`.
    uint8 public immutable decimals;
    /// @notice What the feed prices, e.g. "USDC / ETH".
    string public description;
    uint80 private roundId;
    int256 private answer;
    uint256 private updatedAt;

    // ---------------------------------------------------------------- functions

    constructor(uint8 decimals_, string memory description_, int256 answer_) {
        decimals = decimals_;
        description = description_;
        _set(answer_, block.timestamp);
    }

    /// @notice Starts a new round with `answer_`, updated at `updatedAt_` (unix seconds).
    function setAnswer(int256 answer_, uint256 updatedAt_) external {
        _set(answer_, updatedAt_);
    }

    /// @notice The latest round, as Chainlink's AggregatorV3Interface returns it.
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (roundId, answer, updatedAt, updatedAt, roundId);
    }

    /// @notice The interface version Chainlink's aggregators report.
    function version() external pure returns (uint256) {
        return 4;
    }

    function _set(int256 answer_, uint256 updatedAt_) private {
        roundId += 1;
        answer = answer_;
        updatedAt = updatedAt_;
    }
}
