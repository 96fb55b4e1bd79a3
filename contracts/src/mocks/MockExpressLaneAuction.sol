// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ELCRound, IExpressLaneAuction} from "../interfaces/IExpressLaneAuction.sol";

/// @title MockExpressLaneAuction
/// @notice Stands in for Arbitrum's ExpressLaneAuction: the current round and the two resolved rounds
/// are set directly.
contract MockExpressLaneAuction is IExpressLaneAuction {
    // ---------------------------------------------------------------- storage

    /// @notice The round `currentRound()` reports.
    uint64 public round;
    /// @notice The first entry `resolvedRounds()` reports.
    ELCRound public resolvedA;
    /// @notice The second entry `resolvedRounds()` reports.
    ELCRound public resolvedB;

    // ---------------------------------------------------------------- functions

    /// @notice Sets the current round.
    function setCurrentRound(uint64 round_) external {
        round = round_;
    }

    /// @notice Sets both resolved rounds.
    function setResolvedRounds(ELCRound calldata a, ELCRound calldata b) external {
        resolvedA = a;
        resolvedB = b;
    }

    /// @notice The current round.
    function currentRound() external view returns (uint64) {
        return round;
    }

    /// @notice The two resolved rounds, as set.
    function resolvedRounds() external view returns (ELCRound memory, ELCRound memory) {
        return (resolvedA, resolvedB);
    }
}
