// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title LienRegistry
/// @notice The public record of liens: which right (`lienId`) is encumbered, for whom and until when.
/// Only the inbox records (after the borrower confirmed); only the escrow releases (after full repayment).
contract LienRegistry {
    // ---------------------------------------------------------------- errors

    /// @dev `record` was called by something other than the inbox.
    error NotInbox();
    /// @dev `release` was called by something other than the escrow.
    error NotEscrow();
    /// @dev `bind` was called by something other than the admin.
    error NotAdmin();
    /// @dev `bind` was already called.
    error AlreadyBound();
    /// @dev A required address argument was zero.
    error ZeroAddress();
    /// @dev The lien was already recorded.
    error AlreadyRecorded(bytes32 lienId);
    /// @dev The lien was never recorded.
    error UnknownLien(bytes32 lienId);
    /// @dev The lien was already released.
    error AlreadyReleased(bytes32 lienId);

    // ---------------------------------------------------------------- events

    /// @notice Lien `lienId` on `borrower`'s right was recorded, valid until `expiresAt` (unix seconds).
    event LienRecorded(bytes32 indexed lienId, address indexed borrower, uint64 expiresAt);
    /// @notice Lien `lienId` was released.
    event LienReleased(bytes32 indexed lienId);
    /// @notice The registry now accepts records from `inbox` and releases from `escrow`.
    event Bound(address inbox, address escrow);

    // ---------------------------------------------------------------- storage

    struct Lien {
        address borrower;
        uint64 expiresAt;
        bool recorded;
        bool released;
    }

    /// @notice The only caller allowed to `bind`.
    address public immutable admin;
    /// @notice The only caller allowed to `record`.
    address public inbox;
    /// @notice The only caller allowed to `release`.
    address public escrow;
    /// @notice Every lien ever recorded.
    mapping(bytes32 lienId => Lien) public liens;

    // ---------------------------------------------------------------- functions

    constructor(address admin_) {
        if (admin_ == address(0)) revert ZeroAddress();
        admin = admin_;
    }

    /// @notice Sets the inbox and the escrow, once, by the admin.
    function bind(address inbox_, address escrow_) external {
        if (msg.sender != admin) revert NotAdmin();
        if (inbox != address(0)) revert AlreadyBound();
        if (inbox_ == address(0) || escrow_ == address(0)) revert ZeroAddress();
        inbox = inbox_;
        escrow = escrow_;
        emit Bound(inbox_, escrow_);
    }

    /// @notice Records a lien the borrower confirmed; inbox only.
    function record(bytes32 lienId, address borrower, uint64 expiresAt) external {
        if (msg.sender != inbox) revert NotInbox();
        if (liens[lienId].recorded) revert AlreadyRecorded(lienId);
        liens[lienId] = Lien({borrower: borrower, expiresAt: expiresAt, recorded: true, released: false});
        emit LienRecorded(lienId, borrower, expiresAt);
    }

    /// @notice Releases a recorded lien; escrow only.
    function release(bytes32 lienId) external {
        if (msg.sender != escrow) revert NotEscrow();
        Lien storage lien = liens[lienId];
        if (!lien.recorded) revert UnknownLien(lienId);
        if (lien.released) revert AlreadyReleased(lienId);
        lien.released = true;
        emit LienReleased(lienId);
    }

    /// @notice True while the lien is recorded, not released and not past `expiresAt`.
    function isEncumbered(bytes32 lienId) external view returns (bool) {
        Lien storage lien = liens[lienId];
        // forge-lint: disable-next-line(block-timestamp)
        return lien.recorded && !lien.released && block.timestamp <= lien.expiresAt;
    }
}
