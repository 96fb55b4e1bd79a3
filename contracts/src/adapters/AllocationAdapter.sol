// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BrokerAdapter} from "./BrokerAdapter.sol";
import {IAdapterVaultPayment} from "../interfaces/IAdapterPayment.sol";

/// @title AllocationAdapter
/// @notice Sells numbered slots in owner-configured vaults, one slot per settled order.
contract AllocationAdapter is BrokerAdapter, IAdapterVaultPayment {
    // ---------------------------------------------------------------- errors

    /// @dev The vault has no remaining slot, or was never configured.
    error AllocationSoldOut(uint256 vaultId);

    // ---------------------------------------------------------------- events

    /// @notice The owner set vault `vaultId` to hold `slots` slots in total.
    event VaultConfigured(uint256 indexed vaultId, uint256 slots);
    /// @notice `consumer` got slot `slot` (0-based) of vault `vaultId` for order `orderHash`.
    event AllocationGranted(bytes32 indexed orderHash, uint256 indexed vaultId, address consumer, uint256 slot);
    /// @notice The owner set what a slot of vault `vaultId` costs: `price` of `token` to `payee` (zero token: the default).
    event VaultPaymentSet(uint256 indexed vaultId, address token, address payee, uint256 price);

    // ---------------------------------------------------------------- storage

    struct Vault {
        uint256 slots;
        uint256 used;
    }

    /// @notice Capacity and consumption of each vault.
    mapping(uint256 vaultId => Vault) public vaults;
    /// @dev Each vault's own payment; unset falls back to `defaultPayment`.
    mapping(uint256 vaultId => Payment) private _vaultPayments;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address owner_) BrokerAdapter(broker_, owner_) {}

    /// @notice Sets the total number of slots of `vaultId`; slots already granted stay granted.
    function configureVault(uint256 vaultId, uint256 slots) external onlyOwner {
        vaults[vaultId].slots = slots;
        emit VaultConfigured(vaultId, slots);
    }

    /// @notice Sets what one slot of `vaultId` costs; a zero `token` (with zero `payee` and `price`)
    /// returns the vault to the default payment.
    function setVaultPayment(uint256 vaultId, address token, address payee, uint256 price) external onlyOwner {
        _vaultPayments[vaultId] = _validPayment(token, payee, price);
        emit VaultPaymentSet(vaultId, token, payee, price);
    }

    /// @notice What an order for a slot of `vaultId` must pay: its own payment, else the default.
    function vaultPayment(uint256 vaultId) external view returns (Payment memory) {
        return _paymentOr(_vaultPayments[vaultId]);
    }

    /// @notice Grants the next free slot of the vault named by `params = abi.encode(uint256 vaultId)`.
    /// @dev A sold-out or unconfigured vault is `AllocationSoldOut` whatever was paid; then the payment
    /// must be exactly the vault's (`WrongPayment`).
    /// @return receipt `abi.encode(vaultId, slot)`.
    function grant(
        bytes32 orderHash,
        address consumer,
        address payToken,
        address payee,
        uint256 amount,
        bytes calldata params
    ) external onlyBroker returns (bytes memory receipt) {
        uint256 vaultId = abi.decode(params, (uint256));
        Vault storage vault = vaults[vaultId];
        if (vault.used >= vault.slots) revert AllocationSoldOut(vaultId);
        _requirePayment(_paymentOr(_vaultPayments[vaultId]), payToken, payee, amount);
        uint256 slot = vault.used++;
        emit AllocationGranted(orderHash, vaultId, consumer, slot);
        return abi.encode(vaultId, slot);
    }
}
