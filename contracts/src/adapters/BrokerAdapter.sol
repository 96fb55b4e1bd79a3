// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IAdapter} from "../interfaces/IAdapter.sol";
import {IAdapterPayment} from "../interfaces/IAdapterPayment.sol";

/// @title BrokerAdapter
/// @notice What every adapter shares: only the broker may `grant`, an owner administers it and sets
/// what a grant costs, and a zero address is refused with `ZeroAddress()` at construction and in
/// admin calls.
abstract contract BrokerAdapter is IAdapter, IAdapterPayment, Ownable {
    // ---------------------------------------------------------------- errors

    /// @dev `grant` was called by something other than the broker.
    error NotBroker();
    /// @dev A required address argument was zero.
    error ZeroAddress();
    /// @dev The order did not pay the configured price: it paid `amount` of `token` to `payee`
    /// (what came; the expected payment is readable from the adapter's payment views).
    error WrongPayment(address token, address payee, uint256 amount);

    // ---------------------------------------------------------------- events

    /// @notice The payment every grant without a more specific one must carry is now `price` of `token` to `payee`.
    event DefaultPaymentSet(address token, address payee, uint256 price);

    // ---------------------------------------------------------------- storage

    // A price is IAdapterPayment's `Payment`: `price` base units of `token` to `payee`, a zero token "not set".

    /// @notice The only caller allowed to `grant`.
    address public immutable broker;
    /// @notice The payment of a grant whose vault / claim kind has no payment of its own (and of the
    /// express lane, which an adapter sells one of). Unset: every grant reverts `WrongPayment`.
    Payment public defaultPayment;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address owner_) Ownable(_nonZero(owner_)) {
        broker = _nonZero(broker_);
    }

    /// @dev Reverts `NotBroker()` unless the broker is calling.
    modifier onlyBroker() {
        if (msg.sender != broker) revert NotBroker();
        _;
    }

    /// @notice Hands the adapter to `newOwner`; a zero address reverts `ZeroAddress()`.
    function transferOwnership(address newOwner) public override onlyOwner {
        super.transferOwnership(_nonZero(newOwner));
    }

    /// @notice Sets the default payment; a zero `token` unsets it (then `payee` and `price` must be zero too).
    function setDefaultPayment(address token, address payee, uint256 price) external onlyOwner {
        defaultPayment = _validPayment(token, payee, price);
        emit DefaultPaymentSet(token, payee, price);
    }

    /// @dev `specific` when it is set, else the default payment.
    function _paymentOr(Payment storage specific) internal view returns (Payment memory) {
        return specific.token != address(0) ? specific : defaultPayment;
    }

    /// @dev Reverts `WrongPayment(token, payee, amount)` unless they equal `expected` exactly (an unset
    /// `expected` matches nothing: a broker order cannot pay in the zero address).
    function _requirePayment(Payment memory expected, address token, address payee, uint256 amount) internal pure {
        if (expected.token == address(0) || token != expected.token || payee != expected.payee || amount != expected.price) {
            revert WrongPayment(token, payee, amount);
        }
    }

    /// @dev A payment to store: set (both addresses non-zero) or unset (all zero); else `ZeroAddress()`.
    function _validPayment(address token, address payee, uint256 price) internal pure returns (Payment memory) {
        bool unset = token == address(0) && payee == address(0) && price == 0;
        if (!unset && (token == address(0) || payee == address(0))) revert ZeroAddress();
        return Payment({token: token, payee: payee, price: price});
    }

    /// @dev `account`, or a `ZeroAddress()` revert when it is zero. It wraps the owner given to
    /// `Ownable`, whose constructor runs first and would otherwise answer `OwnableInvalidOwner`.
    function _nonZero(address account) internal pure returns (address) {
        if (account == address(0)) revert ZeroAddress();
        return account;
    }
}
