// SPDX-License-Identifier: MIT
// Any 0.8 compiler: a struct returned from an external function needs ABI coder v2, the default since 0.8.0.
pragma solidity ^0.8.0;

/// @title IAdapterPayment
/// @notice Optional views an adapter offers to say what an order for it must pay. The adapter's
/// `grant` checks the payment itself; these only let others read the price. A relayer that
/// simulates an order reverting `WrongPayment(token, payee, amount)` reads them to say what to
/// pay instead, and `order-relay order --adapter NAME` reads `defaultPayment()` to price an order.
interface IAdapterPayment {
    /// @notice A price: exactly `price` base units of `token`, paid to `payee` (the relayer's fee
    /// comes out of it). A zero `token` means "not set".
    struct Payment {
        address token;
        address payee;
        uint256 price;
    }

    /// @notice What an order must pay when nothing more specific applies.
    /// @return token The EIP-3009 token the order pays in (zero: no default price is set).
    /// @return payee Who receives `price` (less the relayer's fee).
    /// @return price The exact `amount` of the order, in base units of `token`.
    function defaultPayment() external view returns (address token, address payee, uint256 price);
}

/// @title IAdapterVaultPayment
/// @notice An adapter whose `params` start with `abi.encode(uint256 vaultId)` and whose price depends on it.
interface IAdapterVaultPayment is IAdapterPayment {
    /// @notice What an order for vault `vaultId` must pay: the vault's own payment, else `defaultPayment()`.
    /// @return The token, payee and price (a zero token: not set).
    function vaultPayment(uint256 vaultId) external view returns (Payment memory);
}

/// @title IAdapterClaimPayment
/// @notice An adapter whose `params` start with a `bytes32 claim` and whose price depends on its
/// kind, the claim's first four bytes.
interface IAdapterClaimPayment is IAdapterPayment {
    /// @notice What an order for a claim of `kind` must pay: the kind's own payment, else `defaultPayment()`.
    /// @return The token, payee and price (a zero token: not set).
    function claimPayment(bytes4 kind) external view returns (Payment memory);
}
