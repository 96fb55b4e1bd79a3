// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {LienInbox} from "../src/registry/LienInbox.sol";
import {LienPool} from "../src/registry/LienPool.sol";
import {Fixture} from "./support/Fixture.sol";

/// @notice The lien registry set: confirmations that bind every term (no replay onto a squatter's
/// proposal), deadlines and nonces, and funding reserved to the lien's secured party.
contract LienTest is Fixture {
    bytes32 internal constant LIEN = keccak256("lien 1");
    address internal squatter = address(0x5C);
    uint64 internal expiresAt;

    function setUp() public override {
        super.setUp();
        expiresAt = uint64(block.timestamp + 365 days);
    }

    /// @dev The borrower's signature over the lender's terms for LIEN.
    function _lenderTerms(uint256 deadline, uint256 nonce) private view returns (Confirmation memory) {
        return Confirmation({
            lienId: LIEN, securedParty: lender, borrower: borrower, expiresAt: expiresAt, deadline: deadline, nonce: nonce
        });
    }

    function _recorded(bytes32 lienId) private view returns (bool recorded) {
        (,, recorded,) = registry.liens(lienId);
    }

    function test_confirmBySig_recordsTheLien() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(block.timestamp + 1 hours, 7));
        vm.prank(squatter); // anyone may submit it
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 7, v, r, s);
        assertTrue(_recorded(LIEN));
        assertTrue(registry.isEncumbered(LIEN));
        assertTrue(inbox.nonceUsed(borrower, 7));
    }

    /// @dev The attack of issue 14: a front-runner proposes the id first, naming himself; the borrower's
    /// signature over the lender's terms does not confirm his proposal.
    function test_frontRunProposal_borrowerSignatureDoesNotConfirmIt() public {
        vm.prank(squatter);
        inbox.propose(LIEN, borrower, expiresAt);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(block.timestamp + 1 hours, 1));
        vm.expectRevert(LienInbox.BadSignature.selector);
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 1, v, r, s);
        assertTrue(!_recorded(LIEN));
    }

    function test_BadSignature_otherExpiry() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt + 1);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(block.timestamp + 1 hours, 1));
        vm.expectRevert(LienInbox.BadSignature.selector);
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 1, v, r, s);
    }

    function test_BadSignature_otherDeadlineOrNonceThanSigned() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(block.timestamp + 1 hours, 1));
        vm.expectRevert(LienInbox.BadSignature.selector);
        inbox.confirmBySig(LIEN, block.timestamp + 2 hours, 1, v, r, s);
        vm.expectRevert(LienInbox.BadSignature.selector);
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 2, v, r, s);
    }

    function test_BadSignature_notTheBorrower() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(CONSUMER_KEY, _lenderTerms(block.timestamp + 1 hours, 1));
        vm.expectRevert(LienInbox.BadSignature.selector);
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 1, v, r, s);
    }

    function test_SignatureExpired() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        uint256 deadline = block.timestamp + 1 hours;
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(deadline, 1));
        vm.warp(deadline + 1);
        vm.expectRevert(abi.encodeWithSelector(LienInbox.SignatureExpired.selector, deadline));
        inbox.confirmBySig(LIEN, deadline, 1, v, r, s);
    }

    function test_NonceUsed_cancelledByTheBorrower() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(block.timestamp + 1 hours, 3));
        vm.prank(borrower);
        inbox.cancelNonce(3);
        vm.expectRevert(abi.encodeWithSelector(LienInbox.NonceUsed.selector, borrower, uint256(3)));
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 3, v, r, s);
        vm.prank(borrower);
        vm.expectRevert(abi.encodeWithSelector(LienInbox.NonceUsed.selector, borrower, uint256(3)));
        inbox.cancelNonce(3);
    }

    function test_AlreadyConfirmed_signatureReplayed() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        (uint8 v, bytes32 r, bytes32 s) = signConfirmation(BORROWER_KEY, _lenderTerms(block.timestamp + 1 hours, 1));
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 1, v, r, s);
        vm.expectRevert(abi.encodeWithSelector(LienInbox.AlreadyConfirmed.selector, LIEN));
        inbox.confirmBySig(LIEN, block.timestamp + 1 hours, 1, v, r, s);
    }

    function test_UnknownProposal() public {
        vm.expectRevert(abi.encodeWithSelector(LienInbox.UnknownProposal.selector, LIEN));
        inbox.confirmBySig(LIEN, block.timestamp, 1, 27, bytes32(0), bytes32(0));
    }

    function test_DuplicateProposal() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        vm.prank(squatter);
        vm.expectRevert(abi.encodeWithSelector(LienInbox.DuplicateProposal.selector, LIEN));
        inbox.propose(LIEN, borrower, expiresAt);
    }

    function test_ExpiryInPast() public {
        vm.expectRevert(abi.encodeWithSelector(LienInbox.ExpiryInPast.selector, uint64(block.timestamp)));
        inbox.propose(LIEN, borrower, uint64(block.timestamp));
    }

    function test_NotBorrower() public {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        vm.prank(lender);
        vm.expectRevert(LienInbox.NotBorrower.selector);
        inbox.confirm(LIEN);
    }

    // ------------------------------------------------------------ funding

    function _recordedLien() private {
        vm.prank(lender);
        inbox.propose(LIEN, borrower, expiresAt);
        vm.prank(borrower);
        inbox.confirm(LIEN);
        for (uint160 i = 0; i < 2; i++) {
            address who = i == 0 ? lender : squatter;
            usdc.mint(who, 1000);
            vm.startPrank(who);
            usdc.approve(address(pool), 1000);
            pool.deposit(1000);
            vm.stopPrank();
        }
    }

    /// @dev Dust funding: someone else than the secured party cannot lend 1 unit to block the real lender.
    function test_NotSecuredParty_dustLoanRefused() public {
        _recordedLien();
        vm.prank(squatter);
        vm.expectRevert(abi.encodeWithSelector(LienPool.NotSecuredParty.selector, LIEN));
        pool.fund(LIEN, 1);
        vm.prank(lender);
        pool.fund(LIEN, 1000);
        assertEq(pool.lenders(LIEN), lender);
        assertEq(pool.debt(LIEN), 1000);
        assertEq(usdc.balanceOf(borrower), 1000);
    }

    function test_AlreadyFunded() public {
        _recordedLien();
        vm.prank(lender);
        pool.fund(LIEN, 500);
        vm.prank(lender);
        vm.expectRevert(abi.encodeWithSelector(LienPool.AlreadyFunded.selector, LIEN));
        pool.fund(LIEN, 500);
    }

    function test_NotEncumbered() public {
        vm.prank(lender);
        vm.expectRevert(abi.encodeWithSelector(LienPool.NotEncumbered.selector, LIEN));
        pool.fund(LIEN, 1);
    }
}
