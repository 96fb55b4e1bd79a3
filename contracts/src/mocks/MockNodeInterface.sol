// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title MockNodeInterface
/// @notice Stands in for Arbitrum's NodeInterface (at 0x00000000000000000000000000000000000000C8 on
/// Arbitrum chains, reached only through eth_call): `gasEstimateL1Component` answers as Arbitrum's
/// does, in L2 gas units, here `gasPerByte` for every byte of calldata. A test puts this runtime
/// code at that address (`anvil_setCode`) and sets `gasPerByte` there.
contract MockNodeInterface {
    /// @notice L2 gas charged per calldata byte for the L1 data component.
    uint64 public gasPerByte;

    /// @notice Sets the L1 data gas per calldata byte.
    function setGasPerByte(uint64 gasPerByte_) external {
        gasPerByte = gasPerByte_;
    }

    /// @notice The L1 data component of a transaction to `to` carrying `data`, as Arbitrum's
    /// NodeInterface returns it: gas units, the L2 base fee, the L1 base fee estimate.
    function gasEstimateL1Component(address to, bool contractCreation, bytes calldata data)
        external
        payable
        returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)
    {
        to;
        contractCreation;
        return (gasPerByte * uint64(data.length), block.basefee, 1 gwei);
    }
}
