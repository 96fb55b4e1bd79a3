// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BrokerAdapter} from "./BrokerAdapter.sol";
import {ELCRound, IExpressLaneAuction} from "../interfaces/IExpressLaneAuction.sol";

/// @title ExpressLaneAdapter
/// @notice Sells access to an Arbitrum Timeboost express lane, but only while the lane operator
/// controls the current round.
contract ExpressLaneAdapter is BrokerAdapter {
    // ---------------------------------------------------------------- errors

    /// @dev The lane operator does not control the current express-lane round.
    error NoLaneControl();

    // ---------------------------------------------------------------- events

    /// @notice `consumer` bought access to the express lane in `round` with order `orderHash`.
    event LaneGranted(bytes32 indexed orderHash, uint64 round, address consumer);
    /// @notice The lane operator is now `laneOperator`.
    event LaneOperatorSet(address laneOperator);

    // ---------------------------------------------------------------- storage

    /// @notice The express-lane auction read for the current controller.
    IExpressLaneAuction public immutable auction;
    /// @notice The express-lane controller whose lane is sold.
    address public laneOperator;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address auction_, address laneOperator_, address owner_) BrokerAdapter(broker_, owner_) {
        auction = IExpressLaneAuction(_nonZero(auction_));
        laneOperator = _nonZero(laneOperator_);
        emit LaneOperatorSet(laneOperator_);
    }

    /// @notice Replaces the lane operator.
    function setLaneOperator(address laneOperator_) external onlyOwner {
        if (laneOperator_ == address(0)) revert ZeroAddress();
        laneOperator = laneOperator_;
        emit LaneOperatorSet(laneOperator_);
    }

    /// @notice Grants express-lane access for the current round if the lane operator controls it; `params` is ignored.
    /// @dev The adapter sells one lane: its price is `defaultPayment`. `NoLaneControl` comes before `WrongPayment`.
    /// @return receipt `abi.encode(uint64 round)`.
    function grant(bytes32 orderHash, address consumer, address payToken, address payee, uint256 amount, bytes calldata)
        external
        onlyBroker
        returns (bytes memory receipt)
    {
        uint64 round = auction.currentRound();
        (ELCRound memory a, ELCRound memory b) = auction.resolvedRounds();
        if (!_controls(a, round) && !_controls(b, round)) revert NoLaneControl();
        _requirePayment(defaultPayment, payToken, payee, amount);
        emit LaneGranted(orderHash, round, consumer);
        return abi.encode(round);
    }

    /// @dev True when `entry` names the lane operator for `round`. A zero controller never counts:
    /// round 0 doubles as "unset" in the auction.
    function _controls(ELCRound memory entry, uint64 round) private view returns (bool) {
        return entry.round == round && entry.expressLaneController != address(0)
            && entry.expressLaneController == laneOperator;
    }
}
