// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IAdapter} from "./interfaces/IAdapter.sol";
import {IEIP3009} from "./interfaces/IEIP3009.sol";
import {Order} from "./Order.sol";

/// @title Broker
/// @notice Settles a signed order atomically: pulls the consumer's EIP-3009 authorization,
/// pays the relayer's fee and the payee, then has the order's adapter grant the right.
contract Broker is ReentrancyGuard {
    using SafeERC20 for IERC20;

    // ---------------------------------------------------------------- errors

    /// @dev `order.feeBps` is above 10000 (100%).
    error FeeTooHigh();

    // ---------------------------------------------------------------- events

    /// @notice An order was settled; `relayer` submitted it and received `fee`.
    event Brokered(
        bytes32 indexed orderHash,
        address indexed consumer,
        address indexed adapter,
        address relayer,
        address payToken,
        address payee,
        uint256 amount,
        uint256 fee
    );

    // ---------------------------------------------------------------- storage

    uint256 private constant BPS = 10_000;

    // ---------------------------------------------------------------- functions

    /// @notice The order's hash, `keccak256(abi.encode(order))`: the EIP-3009 nonce the consumer signs.
    function hashOrder(Order calldata order) public pure returns (bytes32) {
        return keccak256(abi.encode(order));
    }

    /// @notice Settles `order` with the consumer's `receiveWithAuthorization` signature (nonce = the order hash).
    /// @dev The fee goes to the caller (the relayer). Any failure reverts everything.
    /// @return receipt What the adapter's `grant` returned.
    function broker(Order calldata order, uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s)
        external
        nonReentrant
        returns (bytes memory receipt)
    {
        if (order.feeBps > BPS) revert FeeTooHigh();
        bytes32 orderHash = hashOrder(order);

        IEIP3009(order.payToken).receiveWithAuthorization(
            order.consumer, address(this), order.amount, validAfter, validBefore, orderHash, v, r, s
        );
        uint256 fee = _payOut(order);
        receipt = IAdapter(order.adapter).grant(
            orderHash, order.consumer, order.payToken, order.payee, order.amount, order.params
        );

        emit Brokered(
            orderHash, order.consumer, order.adapter, msg.sender, order.payToken, order.payee, order.amount, fee
        );
    }

    /// @notice The relayer's fee on `amount` at `feeBps` (<= 10000): `floor(amount * feeBps / 10000)`, exact
    /// for every uint256 `amount` (no overflow: the product is split at a multiple of 10000).
    function feeOf(uint256 amount, uint16 feeBps) public pure returns (uint256) {
        // amount = q * BPS + r, so amount * feeBps / BPS = q * feeBps + r * feeBps / BPS exactly:
        // dividing first loses nothing here, and neither product can overflow.
        // forge-lint: disable-next-line(divide-before-multiply)
        return (amount / BPS) * feeBps + (amount % BPS) * feeBps / BPS;
    }

    /// @dev Pays the fee to the relayer and the rest to the payee. A zero transfer is skipped (many
    /// tokens revert on one); a non-zero one that fails or returns false reverts everything.
    function _payOut(Order calldata order) private returns (uint256 fee) {
        IERC20 token = IERC20(order.payToken);
        fee = feeOf(order.amount, order.feeBps);
        uint256 payout = order.amount - fee;
        if (fee != 0) token.safeTransfer(msg.sender, fee);
        if (payout != 0) token.safeTransfer(order.payee, payout);
    }
}
