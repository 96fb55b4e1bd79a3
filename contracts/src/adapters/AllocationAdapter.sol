// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BrokerAdapter} from "./BrokerAdapter.sol";

/// @title AllocationAdapter
/// @notice Sells numbered slots in owner-configured vaults, one slot per settled order.
contract AllocationAdapter is BrokerAdapter {
    // ---------------------------------------------------------------- errors

    /// @dev The vault has no remaining slot, or was never configured.
    error AllocationSoldOut(uint256 vaultId);

    // ---------------------------------------------------------------- events

    /// @notice The owner set vault `vaultId` to hold `slots` slots in total.
    event VaultConfigured(uint256 indexed vaultId, uint256 slots);
    /// @notice `consumer` got slot `slot` (0-based) of vault `vaultId` for order `orderHash`.
    event AllocationGranted(bytes32 indexed orderHash, uint256 indexed vaultId, address consumer, uint256 slot);

    // ---------------------------------------------------------------- storage

    struct Vault {
        uint256 slots;
        uint256 used;
    }

    /// @notice Capacity and consumption of each vault.
    mapping(uint256 vaultId => Vault) public vaults;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address owner_) BrokerAdapter(broker_, owner_) {}

    /// @notice Sets the total number of slots of `vaultId`; slots already granted stay granted.
    function configureVault(uint256 vaultId, uint256 slots) external onlyOwner {
        vaults[vaultId].slots = slots;
        emit VaultConfigured(vaultId, slots);
    }

    /// @notice Grants the next free slot of the vault named by `params = abi.encode(uint256 vaultId)`.
    /// @return receipt `abi.encode(vaultId, slot)`.
    function grant(bytes32 orderHash, address consumer, uint256, bytes calldata params)
        external
        onlyBroker
        returns (bytes memory receipt)
    {
        uint256 vaultId = abi.decode(params, (uint256));
        Vault storage vault = vaults[vaultId];
        if (vault.used >= vault.slots) revert AllocationSoldOut(vaultId);
        uint256 slot = vault.used++;
        emit AllocationGranted(orderHash, vaultId, consumer, slot);
        return abi.encode(vaultId, slot);
    }
}
