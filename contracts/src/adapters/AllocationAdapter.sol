// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IAdapter} from "../interfaces/IAdapter.sol";

/// @title AllocationAdapter
/// @notice Sells numbered slots in owner-configured vaults, one slot per settled order.
contract AllocationAdapter is IAdapter, Ownable {
    // ---------------------------------------------------------------- errors

    /// @dev `grant` was called by something other than the broker.
    error NotBroker();
    /// @dev A required address argument was zero.
    error ZeroAddress();
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

    /// @notice The only caller allowed to `grant`.
    address public immutable broker;
    /// @notice Capacity and consumption of each vault.
    mapping(uint256 vaultId => Vault) public vaults;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address owner_) Ownable(_nonZero(owner_)) {
        if (broker_ == address(0) || owner_ == address(0)) revert ZeroAddress();
        broker = broker_;
    }

    /// @notice Sets the total number of slots of `vaultId`; slots already granted stay granted.
    function configureVault(uint256 vaultId, uint256 slots) external onlyOwner {
        vaults[vaultId].slots = slots;
        emit VaultConfigured(vaultId, slots);
    }

    /// @notice Grants the next free slot of the vault named by `params = abi.encode(uint256 vaultId)`.
    /// @return receipt `abi.encode(vaultId, slot)`.
    function grant(bytes32 orderHash, address consumer, uint256, bytes calldata params)
        external
        returns (bytes memory receipt)
    {
        if (msg.sender != broker) revert NotBroker();
        uint256 vaultId = abi.decode(params, (uint256));
        Vault storage vault = vaults[vaultId];
        if (vault.used >= vault.slots) revert AllocationSoldOut(vaultId);
        uint256 slot = vault.used++;
        emit AllocationGranted(orderHash, vaultId, consumer, slot);
        return abi.encode(vaultId, slot);
    }

    /// @dev `account`, or a `ZeroAddress()` revert when it is zero. Wraps the owner passed to
    /// `Ownable`, whose constructor runs before ours and would otherwise answer `OwnableInvalidOwner`.
    function _nonZero(address account) private pure returns (address) {
        if (account == address(0)) revert ZeroAddress();
        return account;
    }
}
