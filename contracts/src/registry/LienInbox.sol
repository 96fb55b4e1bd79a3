// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

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
    /// @dev The confirmation signature is malformed or not the borrower's.
    error BadSignature();

    // ---------------------------------------------------------------- events

    /// @notice `securedParty` proposed lien `lienId` on `borrower`'s right, until `expiresAt`.
    event LienProposed(
        bytes32 indexed lienId, address indexed securedParty, address indexed borrower, uint64 expiresAt
    );
    /// @notice `borrower` confirmed lien `lienId`; it is now recorded in the registry.
    event LienConfirmed(bytes32 indexed lienId, address indexed borrower);

    // ---------------------------------------------------------------- storage

    struct Proposal {
        address securedParty;
        address borrower;
        uint64 expiresAt;
        bool confirmed;
    }

    /// @notice EIP-712 type hash of the borrower's confirmation.
    bytes32 public constant CONFIRMATION_TYPEHASH = keccak256("Confirmation(bytes32 lienId)");

    /// @notice The registry confirmed liens are recorded in.
    LienRegistry public immutable registry;
    /// @notice Every proposal, by lien id.
    mapping(bytes32 lienId => Proposal) public proposals;

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

    /// @notice Confirms proposal `lienId` with the borrower's EIP-712 `Confirmation(bytes32 lienId)` signature.
    function confirmBySig(bytes32 lienId, uint8 v, bytes32 r, bytes32 s) external {
        Proposal storage proposal = _pending(lienId);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CONFIRMATION_TYPEHASH, lienId)));
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, v, r, s);
        if (err != ECDSA.RecoverError.NoError || signer != proposal.borrower) revert BadSignature();
        _confirm(lienId, proposal);
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
