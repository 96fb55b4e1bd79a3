// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @notice An express-lane controller and the round it won, as Arbitrum's ExpressLaneAuction stores it.
/// @dev `round` 0 with a zero controller means "unset".
struct ELCRound {
    address expressLaneController;
    uint64 round;
}

/// @title IExpressLaneAuction
/// @notice The two views of Arbitrum's Timeboost ExpressLaneAuction that tell who controls the lane.
interface IExpressLaneAuction {
    /// @notice The current round number.
    function currentRound() external view returns (uint64);

    /// @notice The two most recently resolved rounds, in no guaranteed order.
    function resolvedRounds() external view returns (ELCRound memory, ELCRound memory);
}
