// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BrokerAdapter} from "./BrokerAdapter.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title AttestedAdapter
/// @notice Grants a claim vouched for by an off-chain attestor's EIP-712 signature over the order.
contract AttestedAdapter is BrokerAdapter, EIP712 {
    // ---------------------------------------------------------------- errors

    /// @dev The attestation is malformed or not signed by the configured attestor.
    error BadAttestation();
    /// @dev `block.timestamp` is past the attestation's `notAfter`.
    error AttestationExpired();
    /// @dev This attestation was already redeemed by an earlier order.
    error AttestationUsed();

    // ---------------------------------------------------------------- events

    /// @notice `consumer` was granted `claim` for order `orderHash`.
    event AttestedGranted(bytes32 indexed orderHash, address consumer, bytes32 claim);
    /// @notice The attestor is now `attestor`.
    event AttestorSet(address attestor);

    // ---------------------------------------------------------------- storage

    /// @notice EIP-712 type hash of the attestor's signed statement.
    bytes32 public constant ATTESTATION_TYPEHASH =
        keccak256("Attestation(address consumer,bytes32 claim,uint64 notAfter)");

    /// @notice The signer whose attestations are accepted.
    address public attestor;
    /// @notice Attestation digests already redeemed: each attestation grants once.
    mapping(bytes32 digest => bool) public used;

    // ---------------------------------------------------------------- functions

    constructor(address broker_, address attestor_, address owner_)
        BrokerAdapter(broker_, owner_)
        EIP712("AttestedAdapter", "1")
    {
        attestor = _nonZero(attestor_);
        emit AttestorSet(attestor_);
    }

    /// @notice Replaces the attestor.
    function setAttestor(address attestor_) external onlyOwner {
        if (attestor_ == address(0)) revert ZeroAddress();
        attestor = attestor_;
        emit AttestorSet(attestor_);
    }

    /// @notice Grants the claim in `params = abi.encode(bytes32 claim, uint64 notAfter, bytes signature)`
    /// once the attestor's signature over (consumer, claim, notAfter) checks out.
    /// @dev The attestation cannot name the orderHash: the order's `params` carry the
    /// signature, so the hash would contain its own signature. It is bound to the
    /// consumer instead (who signs the order's payment) and is single-use.
    /// @return receipt `abi.encode(bytes32 claim)`.
    function grant(bytes32 orderHash, address consumer, uint256, bytes calldata params)
        external
        onlyBroker
        returns (bytes memory receipt)
    {
        (bytes32 claim, uint64 notAfter, bytes memory signature) = abi.decode(params, (bytes32, uint64, bytes));
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > notAfter) revert AttestationExpired();
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(ATTESTATION_TYPEHASH, consumer, claim, notAfter)));
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, signature);
        if (err != ECDSA.RecoverError.NoError || signer != attestor) revert BadAttestation();
        if (used[digest]) revert AttestationUsed();
        used[digest] = true;
        emit AttestedGranted(orderHash, consumer, claim);
        return abi.encode(claim);
    }
}
