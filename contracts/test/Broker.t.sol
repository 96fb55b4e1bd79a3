// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Broker} from "../src/Broker.sol";
import {Order} from "../src/Order.sol";
import {AllocationAdapter} from "../src/adapters/AllocationAdapter.sol";
import {AttestedAdapter} from "../src/adapters/AttestedAdapter.sol";
import {BrokerAdapter} from "../src/adapters/BrokerAdapter.sol";
import {ExpressLaneAdapter} from "../src/adapters/ExpressLaneAdapter.sol";
import {FalseReturnToken} from "../src/mocks/FalseReturnToken.sol";
import {MockEIP3009Token} from "../src/mocks/MockEIP3009Token.sol";
import {ReentrantAdapter} from "../src/mocks/ReentrantAdapter.sol";
import {Fixture} from "./support/Fixture.sol";
import {ZeroTransferRevertingToken} from "./support/ZeroTransferRevertingToken.sol";

/// @notice The Broker and the adapters: one test per revert of SPEC.md 7.3 and of the payment rule,
/// the zero-transfer rule, and a fuzz of the fee split over any amount and any feeBps <= 10000.
contract BrokerTest is Fixture {
    bytes32 internal constant CLAIM = keccak256("seat 12A");

    function _expectRevertString(string memory reason) private {
        vm.expectRevert(abi.encodeWithSignature("Error(string)", reason));
    }

    function _attestedOrder(uint256 nonce, bytes memory params) private view returns (Order memory order) {
        order = allocationOrder(nonce);
        order.adapter = address(attested);
        order.params = params;
    }

    function _laneOrder(uint256 nonce) private view returns (Order memory order) {
        order = allocationOrder(nonce);
        order.adapter = address(lane);
        order.params = "";
    }

    // ------------------------------------------------------------ happy path

    function test_settle_paysFeeAndPayoutAndGrantsSlot0() public {
        bytes memory receipt = settle(allocationOrder(1));
        assertEq(receipt, abi.encode(uint256(1), uint256(0)));
        assertEq(usdc.balanceOf(relayer), 50_000);
        assertEq(usdc.balanceOf(payee), PRICE - 50_000);
        assertEq(usdc.balanceOf(address(broker)), 0);
    }

    // ------------------------------------------------------------ SPEC.md 7.3, broker contract

    function test_FeeTooHigh() public {
        Order memory order = allocationOrder(1);
        order.feeBps = 10_001;
        settleReverts(order, abi.encodeWithSelector(Broker.FeeTooHigh.selector));
    }

    function test_ReentrancyGuardReentrantCall() public {
        Order memory order = allocationOrder(1);
        order.adapter = address(new ReentrantAdapter(address(broker)));
        settleReverts(order, abi.encodeWithSelector(ReentrancyGuard.ReentrancyGuardReentrantCall.selector));
    }

    function test_SafeERC20FailedOperation() public {
        FalseReturnToken token = new FalseReturnToken("False USD", "1");
        Order memory order = allocationOrder(1);
        order.payToken = address(token);
        settleReverts(order, abi.encodeWithSelector(SafeERC20.SafeERC20FailedOperation.selector, address(token)));
    }

    function test_invalidSignature() public {
        Order memory order = allocationOrder(1);
        usdc.mint(consumer, order.amount);
        (uint8 v, bytes32 r, bytes32 s) = signOrder(order, ATTESTOR_KEY, type(uint256).max);
        _expectRevertString("invalid signature");
        broker.broker(order, 0, type(uint256).max, v, r, s);
    }

    function test_authorizationExpired() public {
        vm.warp(1000);
        Order memory order = allocationOrder(1);
        usdc.mint(consumer, order.amount);
        (uint8 v, bytes32 r, bytes32 s) = signOrder(order, CONSUMER_KEY, 999);
        _expectRevertString("authorization expired");
        broker.broker(order, 0, 999, v, r, s);
    }

    function test_authorizationUsed() public {
        Order memory order = allocationOrder(1);
        settle(order);
        settleReverts(order, abi.encodeWithSignature("Error(string)", "authorization used"));
    }

    // ------------------------------------------------------------ SPEC.md 7.3, adapters

    function test_AllocationSoldOut_unconfiguredVault() public {
        Order memory order = allocationOrder(1);
        order.params = abi.encode(uint256(7));
        settleReverts(order, abi.encodeWithSelector(AllocationAdapter.AllocationSoldOut.selector, uint256(7)));
    }

    function test_AllocationSoldOut_lastSlotSold() public {
        vm.prank(owner);
        allocation.configureVault(9, 1);
        Order memory order = allocationOrder(1);
        order.params = abi.encode(uint256(9));
        settle(order);
        order.nonce = 2;
        settleReverts(order, abi.encodeWithSelector(AllocationAdapter.AllocationSoldOut.selector, uint256(9)));
    }

    function test_NoLaneControl() public {
        auction.setCurrentRound(2);
        settleReverts(_laneOrder(1), abi.encodeWithSelector(ExpressLaneAdapter.NoLaneControl.selector));
    }

    function test_NotBroker() public {
        vm.expectRevert(BrokerAdapter.NotBroker.selector);
        allocation.grant(bytes32(0), consumer, address(usdc), payee, PRICE, abi.encode(uint256(1)));
        vm.expectRevert(BrokerAdapter.NotBroker.selector);
        lane.grant(bytes32(0), consumer, address(usdc), payee, PRICE, "");
        vm.expectRevert(BrokerAdapter.NotBroker.selector);
        attested.grant(bytes32(0), consumer, address(usdc), payee, PRICE, "");
    }

    function test_BadAttestation() public {
        bytes memory params = attestationParams(CONSUMER_KEY, consumer, CLAIM, uint64(block.timestamp + 1));
        settleReverts(_attestedOrder(1, params), abi.encodeWithSelector(AttestedAdapter.BadAttestation.selector));
    }

    function test_AttestationExpired() public {
        vm.warp(1000);
        bytes memory params = attestationParams(ATTESTOR_KEY, consumer, CLAIM, 999);
        settleReverts(_attestedOrder(1, params), abi.encodeWithSelector(AttestedAdapter.AttestationExpired.selector));
    }

    function test_AttestationUsed() public {
        bytes memory params = attestationParams(ATTESTOR_KEY, consumer, CLAIM, uint64(block.timestamp + 1));
        settle(_attestedOrder(1, params));
        settleReverts(_attestedOrder(2, params), abi.encodeWithSelector(AttestedAdapter.AttestationUsed.selector));
    }

    function test_ZeroAddress() public {
        vm.expectRevert(BrokerAdapter.ZeroAddress.selector);
        new AllocationAdapter(address(0), owner);
        vm.expectRevert(BrokerAdapter.ZeroAddress.selector);
        new AllocationAdapter(address(broker), address(0));
        vm.startPrank(owner);
        vm.expectRevert(BrokerAdapter.ZeroAddress.selector);
        lane.setLaneOperator(address(0));
        vm.expectRevert(BrokerAdapter.ZeroAddress.selector);
        attested.setAttestor(address(0));
        vm.expectRevert(BrokerAdapter.ZeroAddress.selector);
        allocation.setVaultPayment(1, address(usdc), address(0), PRICE);
        vm.expectRevert(BrokerAdapter.ZeroAddress.selector);
        allocation.setDefaultPayment(address(0), payee, PRICE);
        vm.stopPrank();
    }

    // ------------------------------------------------------------ the payment rule

    function test_WrongPayment_payee() public {
        Order memory order = allocationOrder(1);
        order.payee = consumer;
        settleReverts(order, abi.encodeWithSelector(BrokerAdapter.WrongPayment.selector, address(usdc), consumer, PRICE));
    }

    function test_WrongPayment_amount() public {
        Order memory order = allocationOrder(1);
        order.amount = PRICE - 1;
        settleReverts(order, abi.encodeWithSelector(BrokerAdapter.WrongPayment.selector, address(usdc), payee, PRICE - 1));
    }

    function test_WrongPayment_token() public {
        MockEIP3009Token other = new MockEIP3009Token("Other USD", "1");
        Order memory order = allocationOrder(1);
        order.payToken = address(other);
        settleReverts(order, abi.encodeWithSelector(BrokerAdapter.WrongPayment.selector, address(other), payee, PRICE));
    }

    function test_WrongPayment_lane() public {
        Order memory order = _laneOrder(1);
        order.amount = 1;
        settleReverts(order, abi.encodeWithSelector(BrokerAdapter.WrongPayment.selector, address(usdc), payee, uint256(1)));
    }

    function test_WrongPayment_claimKindHasItsOwnPrice() public {
        vm.prank(owner);
        attested.setClaimPayment(bytes4(CLAIM), address(usdc), payee, 25_000_000);
        bytes memory params = attestationParams(ATTESTOR_KEY, consumer, CLAIM, uint64(block.timestamp + 1));
        settleReverts(_attestedOrder(1, params), abi.encodeWithSelector(BrokerAdapter.WrongPayment.selector, address(usdc), payee, PRICE));
        Order memory order = _attestedOrder(2, params);
        order.amount = 25_000_000;
        settle(order);
    }

    function test_WrongPayment_nothingSetRefusesEverything() public {
        vm.prank(owner);
        lane.setDefaultPayment(address(0), address(0), 0);
        settleReverts(_laneOrder(1), abi.encodeWithSelector(BrokerAdapter.WrongPayment.selector, address(usdc), payee, PRICE));
    }

    function test_specRevertsComeFirst_soldOutWhateverWasPaid() public {
        Order memory order = allocationOrder(1);
        order.params = abi.encode(uint256(7));
        order.payee = consumer;
        order.amount = 1;
        settleReverts(order, abi.encodeWithSelector(AllocationAdapter.AllocationSoldOut.selector, uint256(7)));
    }

    function test_specRevertsComeFirst_noLaneControlWhateverWasPaid() public {
        auction.setCurrentRound(2);
        Order memory order = _laneOrder(1);
        order.payee = consumer;
        settleReverts(order, abi.encodeWithSelector(ExpressLaneAdapter.NoLaneControl.selector));
    }

    function test_specRevertsComeFirst_badAttestationWhateverWasPaid() public {
        bytes memory params = attestationParams(CONSUMER_KEY, consumer, CLAIM, uint64(block.timestamp + 1));
        Order memory order = _attestedOrder(1, params);
        order.amount = 1;
        settleReverts(order, abi.encodeWithSelector(AttestedAdapter.BadAttestation.selector));
    }

    function test_onlyOwnerSetsPrices() public {
        vm.prank(consumer);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, consumer));
        allocation.setVaultPayment(1, address(usdc), consumer, 1);
        vm.prank(consumer);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, consumer));
        lane.setDefaultPayment(address(usdc), consumer, 1);
        vm.prank(consumer);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, consumer));
        attested.setClaimPayment(bytes4(CLAIM), address(usdc), consumer, 1);
    }

    // ------------------------------------------------------------ zero-value transfers

    function _zeroRefusingOrder(uint16 feeBps) private returns (Order memory order) {
        ZeroTransferRevertingToken token = new ZeroTransferRevertingToken();
        vm.prank(owner);
        allocation.setVaultPayment(1, address(token), payee, PRICE);
        order = allocationOrder(1);
        order.payToken = address(token);
        order.feeBps = feeBps;
    }

    function test_zeroFeeIsNotTransferred() public {
        Order memory order = _zeroRefusingOrder(0);
        settle(order);
        assertEq(MockEIP3009Token(order.payToken).balanceOf(payee), PRICE);
        assertEq(MockEIP3009Token(order.payToken).balanceOf(relayer), 0);
    }

    function test_zeroPayoutIsNotTransferred() public {
        Order memory order = _zeroRefusingOrder(10_000);
        settle(order);
        assertEq(MockEIP3009Token(order.payToken).balanceOf(relayer), PRICE);
        assertEq(MockEIP3009Token(order.payToken).balanceOf(payee), 0);
    }

    // ------------------------------------------------------------ fee split

    /// @dev Any amount (the whole uint256 range: the fee is computed without an overflowing product) and
    /// any feeBps <= 10000, settled for real through the Broker with the vault priced at `amount`.
    function testFuzz_feeSplit(uint256 amount, uint16 feeBps) public {
        feeBps = uint16(bound(feeBps, 0, 10_000));
        vm.prank(owner);
        allocation.setVaultPayment(1, address(usdc), payee, amount);
        Order memory order = allocationOrder(1);
        order.amount = amount;
        order.feeBps = feeBps;
        settle(order);

        uint256 fee = usdc.balanceOf(relayer);
        uint256 payout = usdc.balanceOf(payee);
        assertEq(fee + payout, amount);
        assertLe(fee, amount);
        assertEq(fee, broker.feeOf(amount, feeBps));
        assertEq(usdc.balanceOf(address(broker)), 0);
        if (amount <= type(uint256).max / 10_000) {
            assertEq(fee, amount * feeBps / 10_000);
        } else {
            // amount * feeBps does not fit 256 bits: check floor(amount * feeBps / 10000) through
            // amount = q * 10000 + r, the identity feeOf relies on, term by term.
            (uint256 q, uint256 r) = (amount / 10_000, amount % 10_000);
            assertEq(fee - q * feeBps, r * feeBps / 10_000);
        }
    }

    /// @dev feeOf against the plain formula wherever the plain product fits.
    function testFuzz_feeOfMatchesFormula(uint256 amount, uint16 feeBps) public {
        feeBps = uint16(bound(feeBps, 0, 10_000));
        amount = bound(amount, 0, type(uint256).max / 10_000);
        assertEq(broker.feeOf(amount, feeBps), amount * feeBps / 10_000);
    }
}
