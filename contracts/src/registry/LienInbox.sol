// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {LienRegistry} from "./LienRegistry.sol";

/// @title LienInbox
/// @notice The debtor confirmation flow: a secured party proposes a lien, the borrower confirms it
/// (directly, or by an EIP-712 signature anyone may submit), and the inbox records it in the registry.
contract LienInbox is EIP712 {
    // ---------------------------------------------------------------- errors

    /// @dev A required address argument was zero.
    error ZeroAddress();
    /// @dev A lien with this id was already proposed.
    error DuplicateProposal(bytes32 lienId);
    /// @dev No lien with this id was proposed.
    error UnknownProposal(bytes32 lienId);
    /// @dev The proposal was already confirmed.
    error AlreadyConfirmed(bytes32 lienId);
    /// @dev The proposed expiry is not in the future.
    error ExpiryInPast(uint64 expiresAt);
    /// @dev The caller of `confirm` is not the proposal's borrower.
    error NotBorrower();
    /// @dev The confirmation signature is malformed, not the borrower's, or signed other terms than the proposal's.
    error BadSignature();
    /// @dev `block.timestamp` is past the confirmation signature's `deadline`.
    error SignatureExpired(uint256 deadline);
    /// @dev The borrower already used or cancelled this confirmation nonce.
    error NonceUsed(address borrower, uint256 nonce);

    // ---------------------------------------------------------------- events

    /// @notice `securedParty` proposed lien `lienId` on `borrower`'s right, until `expiresAt`.
    event LienProposed(
        bytes32 indexed lienId, address indexed securedParty, address indexed borrower, uint64 expiresAt
    );
    /// @notice `borrower` confirmed lien `lienId`; it is now recorded in the registry.
    event LienConfirmed(bytes32 indexed lienId, address indexed borrower);
    /// @notice `borrower` cancelled confirmation nonce `nonce`: a signature carrying it no longer confirms anything.
    event NonceCancelled(address indexed borrower, uint256 nonce);

    // ---------------------------------------------------------------- storage

    struct Proposal {
        address securedParty;
        address borrower;
        uint64 expiresAt;
        bool confirmed;
    }

    /// @notice EIP-712 type hash of the borrower's confirmation: every term of the proposal, a deadline and a nonce.
    bytes32 public constant CONFIRMATION_TYPEHASH = keccak256(
        "Confirmation(bytes32 lienId,address securedParty,address borrower,uint64 expiresAt,uint256 deadline,uint256 nonce)"
    );

    /// @notice The registry confirmed liens are recorded in.
    LienRegistry public immutable registry;
    /// @notice Every proposal, by lien id.
    mapping(bytes32 lienId => Proposal) public proposals;
    /// @notice Confirmation nonces each borrower has used or cancelled (unordered: any unused value works).
    mapping(address borrower => mapping(uint256 nonce => bool)) public nonceUsed;

    // ---------------------------------------------------------------- functions

    constructor(address registry_) EIP712("LienInbox", "1") {
        if (registry_ == address(0)) revert ZeroAddress();
        registry = LienRegistry(registry_);
    }

    /// @notice Proposes a lien on `borrower`'s right `lienId` until `expiresAt`; the caller is the secured party.
    /// @dev First come, first served: a lien id can be proposed once.
    function propose(bytes32 lienId, address borrower, uint64 expiresAt) external {
        if (borrower == address(0)) revert ZeroAddress();
        // forge-lint: disable-next-line(block-timestamp)
        if (expiresAt <= block.timestamp) revert ExpiryInPast(expiresAt);
        if (proposals[lienId].borrower != address(0)) revert DuplicateProposal(lienId);
        proposals[lienId] = Proposal({securedParty: msg.sender, borrower: borrower, expiresAt: expiresAt, confirmed: false});
        emit LienProposed(lienId, msg.sender, borrower, expiresAt);
    }

    /// @notice Confirms proposal `lienId`; the caller must be its borrower.
    function confirm(bytes32 lienId) external {
        Proposal storage proposal = _pending(lienId);
        if (msg.sender != proposal.borrower) revert NotBorrower();
        _confirm(lienId, proposal);
    }

    /// @notice Confirms proposal `lienId` with the borrower's EIP-712 `Confirmation` signature, which names
    /// every term of the proposal (lien id, secured party, borrower, expiry), a `deadline` and a `nonce`.
    /// Anyone may submit it.
    /// @dev The digest is built from the proposal as stored: a signature over other terms (someone else's
    /// proposal for the same id) recovers another signer and reverts `BadSignature()`.
    function confirmBySig(bytes32 lienId, uint256 deadline, uint256 nonce, uint8 v, bytes32 r, bytes32 s) external {
        Proposal storage proposal = _pending(lienId);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        address borrower = proposal.borrower;
        if (nonceUsed[borrower][nonce]) revert NonceUsed(borrower, nonce);
        bytes32 digest = _hashTypedDataV4(
            keccak256(
                abi.encode(
                    CONFIRMATION_TYPEHASH, lienId, proposal.securedParty, borrower, proposal.expiresAt, deadline, nonce
                )
            )
        );
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, v, r, s);
        if (err != ECDSA.RecoverError.NoError || signer != borrower) revert BadSignature();
        nonceUsed[borrower][nonce] = true;
        _confirm(lienId, proposal);
    }

    /// @notice Cancels the caller's confirmation nonce `nonce`, so a signature carrying it can no longer be used.
    function cancelNonce(uint256 nonce) external {
        if (nonceUsed[msg.sender][nonce]) revert NonceUsed(msg.sender, nonce);
        nonceUsed[msg.sender][nonce] = true;
        emit NonceCancelled(msg.sender, nonce);
    }

    /// @dev The proposal `lienId`, which must exist and not be confirmed yet.
    function _pending(bytes32 lienId) private view returns (Proposal storage proposal) {
        proposal = proposals[lienId];
        if (proposal.borrower == address(0)) revert UnknownProposal(lienId);
        if (proposal.confirmed) revert AlreadyConfirmed(lienId);
    }

    /// @dev Marks the proposal confirmed and records the lien.
    function _confirm(bytes32 lienId, Proposal storage proposal) private {
        proposal.confirmed = true;
        emit LienConfirmed(lienId, proposal.borrower);
        registry.record(lienId, proposal.borrower, proposal.expiresAt);
    }
}
