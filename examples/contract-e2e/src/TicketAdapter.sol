// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IAdapter} from "order-relay/contracts/src/interfaces/IAdapter.sol";
import {IAdapterPayment} from "order-relay/contracts/src/interfaces/IAdapterPayment.sol";

/// @title TicketAdapter
/// @notice Sells numbered seats for one event through order-relay's Broker: each settled order
/// takes the seat its `params` name (`abi.encode(uint256 seat)`), for one price, in one token, to
/// one seller. `defaultPayment()` (IAdapterPayment) says that price, so a relayer's `WrongPayment`
/// answer says what to pay.
contract TicketAdapter is IAdapter, IAdapterPayment {
    // ---------------------------------------------------------------- errors

    /// @dev `grant` was called by something other than the broker.
    error NotBroker();
    /// @dev Every seat is sold: `sold` of `seats`.
    error SoldOut(uint256 sold, uint256 seats);
    /// @dev The order paid `amount` of `token` to `payee`, not a seat's price in the ticket token to the
    /// seller (`defaultPayment()`). Named as IAdapterPayment's users expect it.
    error WrongPayment(address token, address payee, uint256 amount);
    /// @dev `seat` was already taken by the order `heldBy`.
    error SeatTaken(uint256 seat, bytes32 heldBy);

    // ---------------------------------------------------------------- events

    /// @notice `holder` got `seat` for the paid order `orderHash`.
    event TicketIssued(bytes32 indexed orderHash, address indexed holder, uint256 seat);

    // ---------------------------------------------------------------- storage

    /// @notice The only caller allowed to `grant`.
    address public immutable broker;
    /// @notice The token a seat is paid in.
    address public immutable token;
    /// @notice Who receives the price (less the relayer's fee).
    address public immutable seller;
    /// @notice What one seat costs, in base units of `token`.
    uint256 public immutable price;
    /// @notice How many seats there are (numbered 0 to seats - 1).
    uint256 public immutable seats;
    /// @notice Seats sold so far.
    uint256 public sold;
    /// @notice The order that took each seat.
    mapping(uint256 seat => bytes32 orderHash) public holders;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address token_, address seller_, uint256 price_, uint256 seats_) {
        broker = broker_;
        token = token_;
        seller = seller_;
        price = price_;
        seats = seats_;
    }

    /// @notice What an order must pay: `price` of `token` to `seller`.
    function defaultPayment() external view returns (address, address, uint256) {
        return (token, seller, price);
    }

    /// @notice Issues the seat named by `params` to `consumer` once the order paid the price.
    /// @return receipt `abi.encode(seat)`.
    function grant(
        bytes32 orderHash,
        address consumer,
        address payToken,
        address payee,
        uint256 amount,
        bytes calldata params
    ) external returns (bytes memory receipt) {
        if (msg.sender != broker) revert NotBroker();
        if (payToken != token || payee != seller || amount != price) revert WrongPayment(payToken, payee, amount);
        if (sold >= seats) revert SoldOut(sold, seats);
        uint256 seat = abi.decode(params, (uint256));
        require(seat < seats, "TicketAdapter: no such seat");
        if (holders[seat] != bytes32(0)) revert SeatTaken(seat, holders[seat]);
        holders[seat] = orderHash;
        sold++;
        emit TicketIssued(orderHash, consumer, seat);
        return abi.encode(seat);
    }
}
