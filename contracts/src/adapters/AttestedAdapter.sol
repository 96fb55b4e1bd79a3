// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BrokerAdapter} from "./BrokerAdapter.sol";
import {IAdapterClaimPayment} from "../interfaces/IAdapterPayment.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title AttestedAdapter
/// @notice Grants a claim vouched for by an off-chain attestor's EIP-712 signature over the order.
contract AttestedAdapter is BrokerAdapter, IAdapterClaimPayment, EIP712 {
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
    /// @notice The owner set what a claim of kind `kind` costs: `price` of `token` to `payee` (zero token: the default).
    event ClaimPaymentSet(bytes4 indexed kind, address token, address payee, uint256 price);

    // ---------------------------------------------------------------- storage

    /// @notice EIP-712 type hash of the attestor's signed statement.
    bytes32 public constant ATTESTATION_TYPEHASH =
        keccak256("Attestation(address consumer,bytes32 claim,uint64 notAfter)");

    /// @notice The signer whose attestations are accepted.
    address public attestor;
    /// @notice Attestation digests already redeemed: each attestation grants once.
    mapping(bytes32 digest => bool) public used;
    /// @dev Each claim kind's own payment; unset falls back to `defaultPayment`.
    mapping(bytes4 kind => Payment) private _claimPayments;

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

    /// @notice Sets what a claim of `kind` (the claim's first four bytes) costs; a zero `token` (with zero
    /// `payee` and `price`) returns the kind to the default payment.
    function setClaimPayment(bytes4 kind, address token, address payee, uint256 price) external onlyOwner {
        _claimPayments[kind] = _validPayment(token, payee, price);
        emit ClaimPaymentSet(kind, token, payee, price);
    }

    /// @notice What an order for a claim of `kind` must pay: the kind's own payment, else the default.
    function claimPayment(bytes4 kind) external view returns (Payment memory) {
        return _paymentOr(_claimPayments[kind]);
    }

    /// @notice Grants the claim in `params = abi.encode(bytes32 claim, uint64 notAfter, bytes signature)`
    /// once the attestor's signature over (consumer, claim, notAfter) checks out and the order paid the
    /// price of the claim's kind (`bytes4(claim)`, attested with the claim).
    /// @dev The attestation cannot name the orderHash: the order's `params` carry the
    /// signature, so the hash would contain its own signature. It is bound to the
    /// consumer instead (who signs the order's payment) and is single-use. The attestation's
    /// checks come before `WrongPayment`.
    /// @return receipt `abi.encode(bytes32 claim)`.
    function grant(
        bytes32 orderHash,
        address consumer,
        address payToken,
        address payee,
        uint256 amount,
        bytes calldata params
    ) external onlyBroker returns (bytes memory receipt) {
        (bytes32 claim, uint64 notAfter, bytes memory signature) = abi.decode(params, (bytes32, uint64, bytes));
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > notAfter) revert AttestationExpired();
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(ATTESTATION_TYPEHASH, consumer, claim, notAfter)));
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, signature);
        if (err != ECDSA.RecoverError.NoError || signer != attestor) revert BadAttestation();
        if (used[digest]) revert AttestationUsed();
        // A claim's kind is its first four bytes, by definition: the truncation is the point.
        // forge-lint: disable-next-line(unsafe-typecast)
        _requirePayment(_paymentOr(_claimPayments[bytes4(claim)]), payToken, payee, amount);
        used[digest] = true;
        emit AttestedGranted(orderHash, consumer, claim);
        return abi.encode(claim);
    }
}
