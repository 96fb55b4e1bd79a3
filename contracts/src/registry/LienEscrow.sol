// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {LienPool} from "./LienPool.sol";
import {LienRegistry} from "./LienRegistry.sol";

/// @title LienEscrow
/// @notice Takes repayments of funded liens into the pool; the repayment that clears the debt
/// releases the lien in the registry.
contract LienEscrow {
    using SafeERC20 for IERC20;

    // ---------------------------------------------------------------- errors

    /// @dev A required address argument was zero.
    error ZeroAddress();
    /// @dev An amount of zero was given.
    error ZeroAmount();
    /// @dev The lien has no outstanding debt (never funded, or already repaid).
    error NothingOwed(bytes32 lienId);
    /// @dev The repayment is larger than the lien's outstanding debt.
    error RepaymentExceedsDebt(bytes32 lienId, uint256 debt);

    // ---------------------------------------------------------------- events

    /// @notice `payer` repaid `amount` on lien `lienId`; `remaining` is still owed.
    event Repaid(bytes32 indexed lienId, address indexed payer, uint256 amount, uint256 remaining);

    // ---------------------------------------------------------------- storage

    /// @notice The registry that releases fully repaid liens.
    LienRegistry public immutable registry;
    /// @notice The pool repayments go to.
    LienPool public immutable pool;
    /// @notice The token repaid.
    IERC20 public immutable token;

    // ---------------------------------------------------------------- functions

    constructor(address registry_, address pool_, address token_) {
        if (registry_ == address(0) || pool_ == address(0) || token_ == address(0)) revert ZeroAddress();
        registry = LienRegistry(registry_);
        pool = LienPool(pool_);
        token = IERC20(token_);
    }

    /// @notice Repays `amount` on lien `lienId` from the caller (approve the escrow first); anyone may pay.
    /// @dev Clearing the debt releases the lien.
    function repay(bytes32 lienId, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        uint256 owed = pool.debt(lienId);
        if (owed == 0) revert NothingOwed(lienId);
        if (amount > owed) revert RepaymentExceedsDebt(lienId, owed);
        token.safeTransferFrom(msg.sender, address(pool), amount);
        uint256 remaining = pool.onRepaid(lienId, amount);
        emit Repaid(lienId, msg.sender, amount, remaining);
        if (remaining == 0) registry.release(lienId);
    }
}
