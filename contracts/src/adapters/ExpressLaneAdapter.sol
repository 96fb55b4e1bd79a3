// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IAdapter} from "../interfaces/IAdapter.sol";
import {ELCRound, IExpressLaneAuction} from "../interfaces/IExpressLaneAuction.sol";

/// @title ExpressLaneAdapter
/// @notice Sells access to an Arbitrum Timeboost express lane, but only while the lane operator
/// controls the current round.
contract ExpressLaneAdapter is IAdapter, Ownable {
    // ---------------------------------------------------------------- errors

    /// @dev `grant` was called by something other than the broker.
    error NotBroker();
    /// @dev A required address argument was zero.
    error ZeroAddress();
    /// @dev The lane operator does not control the current express-lane round.
    error NoLaneControl();

    // ---------------------------------------------------------------- events

    /// @notice `consumer` bought access to the express lane in `round` with order `orderHash`.
    event LaneGranted(bytes32 indexed orderHash, uint64 round, address consumer);
    /// @notice The lane operator is now `laneOperator`.
    event LaneOperatorSet(address laneOperator);

    // ---------------------------------------------------------------- storage

    /// @notice The only caller allowed to `grant`.
    address public immutable broker;
    /// @notice The express-lane auction read for the current controller.
    IExpressLaneAuction public immutable auction;
    /// @notice The express-lane controller whose lane is sold.
    address public laneOperator;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address auction_, address laneOperator_, address owner_) Ownable(_nonZero(owner_)) {
        if (broker_ == address(0) || auction_ == address(0) || laneOperator_ == address(0) || owner_ == address(0)) {
            revert ZeroAddress();
        }
        broker = broker_;
        auction = IExpressLaneAuction(auction_);
        laneOperator = laneOperator_;
        emit LaneOperatorSet(laneOperator_);
    }

    /// @notice Replaces the lane operator.
    function setLaneOperator(address laneOperator_) external onlyOwner {
        if (laneOperator_ == address(0)) revert ZeroAddress();
        laneOperator = laneOperator_;
        emit LaneOperatorSet(laneOperator_);
    }

    /// @notice Grants express-lane access for the current round if the lane operator controls it; `params` is ignored.
    /// @return receipt `abi.encode(uint64 round)`.
    function grant(bytes32 orderHash, address consumer, uint256, bytes calldata)
        external
        returns (bytes memory receipt)
    {
        if (msg.sender != broker) revert NotBroker();
        uint64 round = auction.currentRound();
        (ELCRound memory a, ELCRound memory b) = auction.resolvedRounds();
        if (!_controls(a, round) && !_controls(b, round)) revert NoLaneControl();
        emit LaneGranted(orderHash, round, consumer);
        return abi.encode(round);
    }

    /// @dev True when `entry` names the lane operator for `round`. A zero controller never counts:
    /// round 0 doubles as "unset" in the auction.
    function _controls(ELCRound memory entry, uint64 round) private view returns (bool) {
        return entry.round == round && entry.expressLaneController != address(0)
            && entry.expressLaneController == laneOperator;
    }

    /// @dev `account`, or a `ZeroAddress()` revert when it is zero. Wraps the owner passed to
    /// `Ownable`, whose constructor runs before ours and would otherwise answer `OwnableInvalidOwner`.
    function _nonZero(address account) private pure returns (address) {
        if (account == address(0)) revert ZeroAddress();
        return account;
    }
}
