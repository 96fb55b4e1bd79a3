// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {LienInbox} from "./LienInbox.sol";
import {LienRegistry} from "./LienRegistry.sol";

/// @title LienPool
/// @notice Lenders deposit the payment token; a lien's secured party funds it by paying its borrower
/// out of their deposit, and repayments (through the escrow) flow back into that deposit.
contract LienPool {
    using SafeERC20 for IERC20;

    // ---------------------------------------------------------------- errors

    /// @dev A required address argument was zero.
    error ZeroAddress();
    /// @dev An amount of zero was given.
    error ZeroAmount();
    /// @dev `setEscrow` was called by something other than the deployer.
    error NotDeployer();
    /// @dev `setEscrow` was already called.
    error EscrowAlreadySet();
    /// @dev `onRepaid` was called by something other than the escrow.
    error NotEscrow();
    /// @dev The lender's deposit is smaller than the amount asked for.
    error InsufficientDeposit(uint256 available);
    /// @dev The lien is not recorded, released or expired.
    error NotEncumbered(bytes32 lienId);
    /// @dev The lien was already funded.
    error AlreadyFunded(bytes32 lienId);
    /// @dev Only the lien's secured party (who proposed it and the borrower confirmed) may fund it.
    error NotSecuredParty(bytes32 lienId);
    /// @dev The repayment is larger than the lien's outstanding debt.
    error RepaymentExceedsDebt(bytes32 lienId, uint256 debt);

    // ---------------------------------------------------------------- events

    /// @notice `lender` deposited `amount`.
    event Deposited(address indexed lender, uint256 amount);
    /// @notice `lender` withdrew `amount` of their deposit.
    event Withdrawn(address indexed lender, uint256 amount);
    /// @notice `lender` lent `amount` against lien `lienId`, paid to `borrower`.
    event LoanFunded(bytes32 indexed lienId, address indexed lender, address indexed borrower, uint256 amount);
    /// @notice `amount` repaid on lien `lienId` was credited to `lender`'s deposit; `remaining` is still owed.
    event RepaymentCredited(bytes32 indexed lienId, address indexed lender, uint256 amount, uint256 remaining);
    /// @notice The pool now accepts repayments from `escrow`.
    event EscrowSet(address escrow);

    // ---------------------------------------------------------------- storage

    /// @notice The registry whose liens are funded.
    LienRegistry public immutable registry;
    /// @notice The token lent and repaid.
    IERC20 public immutable token;
    /// @notice The only caller allowed to `setEscrow`.
    address public immutable deployer;
    /// @notice The only caller allowed to `onRepaid`.
    address public escrow;
    /// @notice Each lender's available (not lent out) deposit.
    mapping(address lender => uint256) public deposits;
    /// @notice The lender of each funded lien.
    mapping(bytes32 lienId => address) public lenders;
    /// @notice What each lien still owes.
    mapping(bytes32 lienId => uint256) public debt;

    // ---------------------------------------------------------------- functions

    constructor(address registry_, address token_) {
        if (registry_ == address(0) || token_ == address(0)) revert ZeroAddress();
        registry = LienRegistry(registry_);
        token = IERC20(token_);
        deployer = msg.sender;
    }

    /// @notice Sets the escrow, once, by the deployer.
    function setEscrow(address escrow_) external {
        if (msg.sender != deployer) revert NotDeployer();
        if (escrow != address(0)) revert EscrowAlreadySet();
        if (escrow_ == address(0)) revert ZeroAddress();
        escrow = escrow_;
        emit EscrowSet(escrow_);
    }

    /// @notice Deposits `amount` of the token (approve the pool first).
    function deposit(uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        deposits[msg.sender] += amount;
        emit Deposited(msg.sender, amount);
        token.safeTransferFrom(msg.sender, address(this), amount);
    }

    /// @notice Withdraws `amount` of the caller's available deposit.
    function withdraw(uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        uint256 available = deposits[msg.sender];
        if (amount > available) revert InsufficientDeposit(available);
        deposits[msg.sender] = available - amount;
        emit Withdrawn(msg.sender, amount);
        token.safeTransfer(msg.sender, amount);
    }

    /// @notice Lends `amount` of the caller's deposit against encumbered lien `lienId`, paid to its borrower.
    /// @dev Only the lien's secured party may fund it, once: nobody else can block the real lender with a
    /// dust loan.
    function fund(bytes32 lienId, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        if (!registry.isEncumbered(lienId)) revert NotEncumbered(lienId);
        (address securedParty,,,) = LienInbox(registry.inbox()).proposals(lienId);
        if (msg.sender != securedParty) revert NotSecuredParty(lienId);
        if (lenders[lienId] != address(0)) revert AlreadyFunded(lienId);
        uint256 available = deposits[msg.sender];
        if (amount > available) revert InsufficientDeposit(available);
        (address borrower,,,) = registry.liens(lienId);

        deposits[msg.sender] = available - amount;
        lenders[lienId] = msg.sender;
        debt[lienId] = amount;
        emit LoanFunded(lienId, msg.sender, borrower, amount);
        token.safeTransfer(borrower, amount);
    }

    /// @notice Books a repayment the escrow has already moved into the pool; escrow only.
    /// @return remaining What lien `lienId` still owes.
    function onRepaid(bytes32 lienId, uint256 amount) external returns (uint256 remaining) {
        if (msg.sender != escrow) revert NotEscrow();
        uint256 owed = debt[lienId];
        if (amount > owed) revert RepaymentExceedsDebt(lienId, owed);
        remaining = owed - amount;
        debt[lienId] = remaining;
        address lender = lenders[lienId];
        deposits[lender] += amount;
        emit RepaymentCredited(lienId, lender, amount, remaining);
    }
}
