// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Test} from "forge-std/Test.sol";
import {Broker} from "../../src/Broker.sol";
import {Order} from "../../src/Order.sol";
import {AllocationAdapter} from "../../src/adapters/AllocationAdapter.sol";
import {AttestedAdapter} from "../../src/adapters/AttestedAdapter.sol";
import {ExpressLaneAdapter} from "../../src/adapters/ExpressLaneAdapter.sol";
import {ELCRound} from "../../src/interfaces/IExpressLaneAuction.sol";
import {MockEIP3009Token} from "../../src/mocks/MockEIP3009Token.sol";
import {MockExpressLaneAuction} from "../../src/mocks/MockExpressLaneAuction.sol";
import {LienEscrow} from "../../src/registry/LienEscrow.sol";
import {LienInbox} from "../../src/registry/LienInbox.sol";
import {LienPool} from "../../src/registry/LienPool.sol";
import {LienRegistry} from "../../src/registry/LienRegistry.sol";

/// @notice The devnet's deployment in a forge test: the Broker, the three adapters priced at 10 USDC
/// to `payee` in `usdc` (vault 1 with 1000 slots, the lane operator controlling round 1), and the
/// registry set bound together; plus signing helpers for EIP-3009 authorizations, attestations and
/// lien confirmations.
abstract contract Fixture is Test {
    uint256 internal constant PRICE = 10_000_000;
    uint256 internal constant CONSUMER_KEY = 0xC0;
    uint256 internal constant ATTESTOR_KEY = 0xA7;
    uint256 internal constant BORROWER_KEY = 0xB0;

    address internal owner = address(0x0A);
    address internal relayer = address(0x0B);
    address internal payee = address(0x0C);
    address internal laneOperator = address(0x0D);
    address internal lender = address(0x0E);
    address internal consumer;
    address internal attestor;
    address internal borrower;

    Broker internal broker;
    MockEIP3009Token internal usdc;
    AllocationAdapter internal allocation;
    ExpressLaneAdapter internal lane;
    AttestedAdapter internal attested;
    MockExpressLaneAuction internal auction;
    LienRegistry internal registry;
    LienInbox internal inbox;
    LienPool internal pool;
    LienEscrow internal escrow;

    function setUp() public virtual {
        consumer = vm.addr(CONSUMER_KEY);
        attestor = vm.addr(ATTESTOR_KEY);
        borrower = vm.addr(BORROWER_KEY);

        broker = new Broker();
        usdc = new MockEIP3009Token("USD Coin", "2");
        auction = new MockExpressLaneAuction();
        allocation = new AllocationAdapter(address(broker), owner);
        lane = new ExpressLaneAdapter(address(broker), address(auction), laneOperator, owner);
        attested = new AttestedAdapter(address(broker), attestor, owner);

        vm.startPrank(owner);
        allocation.setDefaultPayment(address(usdc), payee, PRICE);
        lane.setDefaultPayment(address(usdc), payee, PRICE);
        attested.setDefaultPayment(address(usdc), payee, PRICE);
        allocation.configureVault(1, 1000);
        vm.stopPrank();
        auction.setCurrentRound(1);
        auction.setResolvedRounds(ELCRound(laneOperator, 1), ELCRound(address(0), 0));

        registry = new LienRegistry(address(this));
        inbox = new LienInbox(address(registry));
        pool = new LienPool(address(registry), address(usdc));
        escrow = new LienEscrow(address(registry), address(pool), address(usdc));
        registry.bind(address(inbox), address(escrow));
        pool.setEscrow(address(escrow));
    }

    // ------------------------------------------------------------ orders

    /// @notice A paying allocation order for vault 1 (10 USDC to `payee`, fee 50 bps).
    function allocationOrder(uint256 nonce) internal view returns (Order memory) {
        return Order({
            consumer: consumer,
            adapter: address(allocation),
            params: abi.encode(uint256(1)),
            payToken: address(usdc),
            payee: payee,
            amount: PRICE,
            nonce: nonce,
            feeBps: 50
        });
    }

    /// @notice Mints the order's amount to the consumer and settles it from `relayer`.
    function settle(Order memory order) internal returns (bytes memory) {
        MockEIP3009Token(order.payToken).mint(order.consumer, order.amount);
        (uint8 v, bytes32 r, bytes32 s) = signOrder(order, CONSUMER_KEY, type(uint256).max);
        vm.prank(relayer);
        return broker.broker(order, 0, type(uint256).max, v, r, s);
    }

    /// @notice Mints the order's amount to the consumer and expects settling it from `relayer` to revert with `err`.
    function settleReverts(Order memory order, bytes memory err) internal {
        MockEIP3009Token(order.payToken).mint(order.consumer, order.amount);
        (uint8 v, bytes32 r, bytes32 s) = signOrder(order, CONSUMER_KEY, type(uint256).max);
        vm.prank(relayer);
        vm.expectRevert(err);
        broker.broker(order, 0, type(uint256).max, v, r, s);
    }

    /// @notice The consumer's `receiveWithAuthorization` signature for `order` (nonce = the order hash).
    function signOrder(Order memory order, uint256 key, uint256 validBefore) internal returns (uint8, bytes32, bytes32) {
        MockEIP3009Token token = MockEIP3009Token(order.payToken);
        bytes32 structHash = keccak256(
            abi.encode(
                token.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(),
                order.consumer,
                address(broker),
                order.amount,
                uint256(0),
                validBefore,
                broker.hashOrder(order)
            )
        );
        return vm.sign(key, keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash)));
    }

    // ------------------------------------------------------------ attestations and confirmations

    function attestationParams(uint256 key, address who, bytes32 claim, uint64 notAfter) internal returns (bytes memory) {
        bytes32 structHash = keccak256(abi.encode(attested.ATTESTATION_TYPEHASH(), who, claim, notAfter));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _digest(address(attested), "AttestedAdapter", structHash));
        return abi.encode(claim, notAfter, abi.encodePacked(r, s, v));
    }

    struct Confirmation {
        bytes32 lienId;
        address securedParty;
        address borrower;
        uint64 expiresAt;
        uint256 deadline;
        uint256 nonce;
    }

    function signConfirmation(uint256 key, Confirmation memory c) internal returns (uint8, bytes32, bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(inbox.CONFIRMATION_TYPEHASH(), c.lienId, c.securedParty, c.borrower, c.expiresAt, c.deadline, c.nonce)
        );
        return vm.sign(key, _digest(address(inbox), "LienInbox", structHash));
    }

    function _digest(address verifyingContract, string memory name, bytes32 structHash) private view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256("1"),
                block.chainid,
                verifyingContract
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }
}
