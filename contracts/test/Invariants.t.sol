// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Vm} from "forge-std/Vm.sol";
import {Broker} from "../src/Broker.sol";
import {Order} from "../src/Order.sol";
import {AllocationAdapter} from "../src/adapters/AllocationAdapter.sol";
import {MockEIP3009Token} from "../src/mocks/MockEIP3009Token.sol";
import {LienInbox} from "../src/registry/LienInbox.sol";
import {LienRegistry} from "../src/registry/LienRegistry.sol";
import {Fixture} from "./support/Fixture.sol";

/// @notice What the invariant campaign calls at random: settlements of allocation orders (any amount,
/// any feeBps, sometimes paying the wrong payee), vault reconfigurations, lien proposals and
/// confirmations (direct or by signature, by the right or a wrong signer, over the right or other
/// terms). Ghost variables record what the handler itself knows to be true.
contract Handler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    Broker internal immutable broker;
    MockEIP3009Token internal immutable usdc;
    AllocationAdapter internal immutable allocation;
    LienInbox internal immutable inbox;
    address internal immutable owner;
    address internal immutable payee;
    uint256 internal immutable consumerKey;
    bytes32 internal immutable domainSeparator;

    uint256[3] internal keys = [uint256(0xB1), 0xB2, 0xB3];
    bytes32[4] public lienIds = [keccak256("a"), keccak256("b"), keccak256("c"), keccak256("d")];

    /// @notice How often each (vault, slot) was granted.
    mapping(uint256 vaultId => mapping(uint256 slot => uint256)) public grants;
    /// @notice Set when a slot was granted a second time.
    bool public slotGrantedTwice;
    /// @notice Set when the Broker held a balance right after a settlement.
    bool public brokerHeldBalance;
    /// @notice Liens whose borrower, by the handler's own knowledge, confirmed the proposal's terms.
    mapping(bytes32 lienId => bool) public borrowerConfirmed;
    uint256 public settlements;
    uint256 public confirmations;
    uint256 internal nonce;

    constructor(Broker broker_, MockEIP3009Token usdc_, AllocationAdapter allocation_, LienInbox inbox_, address owner_, address payee_, uint256 consumerKey_) {
        broker = broker_;
        usdc = usdc_;
        allocation = allocation_;
        inbox = inbox_;
        owner = owner_;
        payee = payee_;
        consumerKey = consumerKey_;
        domainSeparator = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("LienInbox"),
                keccak256("1"),
                block.chainid,
                address(inbox_)
            )
        );
    }

    // ------------------------------------------------------------ settlements

    function configureVault(uint8 vaultSeed, uint8 slots) external {
        vm.prank(owner);
        allocation.configureVault(1 + uint256(vaultSeed) % 3, slots % 6);
    }

    function settle(uint256 amount, uint16 feeBps, uint8 vaultSeed, bool wrongPayee) external {
        uint256 vaultId = 1 + uint256(vaultSeed) % 3;
        amount = amount % 1e30;
        vm.prank(owner);
        allocation.setVaultPayment(vaultId, address(usdc), payee, amount);
        Order memory order = Order({
            consumer: vm.addr(consumerKey),
            adapter: address(allocation),
            params: abi.encode(vaultId),
            payToken: address(usdc),
            payee: wrongPayee ? address(this) : payee,
            amount: amount,
            nonce: ++nonce,
            feeBps: uint16(feeBps % 10_001)
        });
        usdc.mint(order.consumer, amount);
        bytes32 structHash = keccak256(
            abi.encode(
                usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(), order.consumer, address(broker), amount, uint256(0), type(uint256).max, broker.hashOrder(order)
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(consumerKey, keccak256(abi.encodePacked("\x19\x01", usdc.DOMAIN_SEPARATOR(), structHash)));
        try broker.broker(order, 0, type(uint256).max, v, r, s) returns (bytes memory receipt) {
            (uint256 grantedVault, uint256 slot) = abi.decode(receipt, (uint256, uint256));
            if (++grants[grantedVault][slot] > 1) slotGrantedTwice = true;
            settlements++;
        } catch {}
        if (usdc.balanceOf(address(broker)) != 0) brokerHeldBalance = true;
    }

    // ------------------------------------------------------------ liens

    function propose(uint8 lienSeed, uint8 proposerSeed, uint8 borrowerSeed) external {
        address proposer = proposerSeed % 4 == 3 ? address(0x5C) : vm.addr(keys[proposerSeed % 3]);
        vm.prank(proposer);
        try inbox.propose(lienIds[lienSeed % 4], vm.addr(keys[borrowerSeed % 3]), uint64(block.timestamp + 1 days)) {} catch {}
    }

    function confirm(uint8 lienSeed, uint8 callerSeed) external {
        bytes32 lienId = lienIds[lienSeed % 4];
        address caller = vm.addr(keys[callerSeed % 3]);
        (,address borrower,,) = inbox.proposals(lienId);
        vm.prank(caller);
        try inbox.confirm(lienId) {
            borrowerConfirmed[lienId] = caller == borrower;
            confirmations++;
        } catch {}
    }

    /// @dev Signs by a random key over the proposal's terms or over others (another secured party, another
    /// expiry): the replay of a confirmation onto someone else's proposal.
    function confirmBySig(uint8 lienSeed, uint8 signerSeed, uint8 termsSeed, uint256 sigNonce) external {
        bytes32 lienId = lienIds[lienSeed % 4];
        (address securedParty, address borrower, uint64 expiresAt,) = inbox.proposals(lienId);
        uint256 key = keys[signerSeed % 3];
        uint256 variant = termsSeed % 3;
        Terms memory signed = Terms({
            lienId: lienId,
            securedParty: variant == 1 ? address(0x5C) : securedParty,
            borrower: borrower,
            expiresAt: variant == 2 ? expiresAt + 1 : expiresAt,
            deadline: block.timestamp + 1 hours,
            nonce: sigNonce
        });
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _digest(signed));
        try inbox.confirmBySig(lienId, signed.deadline, sigNonce, v, r, s) {
            borrowerConfirmed[lienId] = vm.addr(key) == borrower && signed.securedParty == securedParty && signed.expiresAt == expiresAt;
            confirmations++;
        } catch {}
    }

    struct Terms {
        bytes32 lienId;
        address securedParty;
        address borrower;
        uint64 expiresAt;
        uint256 deadline;
        uint256 nonce;
    }

    function _digest(Terms memory t) private view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(inbox.CONFIRMATION_TYPEHASH(), t.lienId, t.securedParty, t.borrower, t.expiresAt, t.deadline, t.nonce)
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }
}

/// @notice The invariants of issue 14, over random sequences of the handler's calls.
contract InvariantsTest is Fixture {
    Handler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new Handler(broker, usdc, allocation, inbox, owner, payee, CONSUMER_KEY);
    }

    /// @notice Only the handler is called by the campaign.
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// @dev The handler's paths do succeed (a campaign whose calls all failed would prove nothing):
    /// a paying settlement grants slot 0, a wrong payee is refused, the borrower's own signature over
    /// the proposal's terms records the lien, another signer's does not.
    function test_handlerPathsSucceed() public {
        handler.settle(PRICE, 50, 0, false);
        assertEq(handler.settlements(), 1);
        assertEq(handler.grants(1, 0), 1);
        handler.settle(PRICE, 50, 0, true);
        assertEq(handler.settlements(), 1);

        handler.propose(0, 1, 0); // lien a, proposed by key 0xB2, borrower key 0xB1
        handler.confirmBySig(0, 1, 0, 1); // signed by key 0xB2: not the borrower
        assertEq(handler.confirmations(), 0);
        handler.confirmBySig(0, 0, 1, 1); // the borrower, but naming another secured party (0x5C)
        assertEq(handler.confirmations(), 0);
        handler.confirmBySig(0, 0, 0, 1); // the borrower over the proposal's terms
        assertEq(handler.confirmations(), 1);
        assertTrue(handler.borrowerConfirmed(handler.lienIds(0)));
    }

    function invariant_brokerNeverHoldsABalance() public view {
        assertEq(usdc.balanceOf(address(broker)), 0);
        assertTrue(!handler.brokerHeldBalance(), "the Broker held a balance after a settlement");
    }

    function invariant_slotNeverGrantedTwice() public view {
        assertTrue(!handler.slotGrantedTwice(), "a slot was granted twice");
        for (uint256 vaultId = 1; vaultId <= 3; vaultId++) {
            (, uint256 used) = allocation.vaults(vaultId);
            // Slots 0..used-1 were each granted once; none beyond.
            assertEq(handler.grants(vaultId, used), 0);
        }
    }

    function invariant_lienRecordedOnlyWithBorrowersConfirmation() public view {
        for (uint256 i = 0; i < 4; i++) {
            bytes32 lienId = handler.lienIds(i);
            (address recordedBorrower,, bool recorded,) = registry.liens(lienId);
            if (!recorded) continue;
            (, address proposedBorrower,,) = inbox.proposals(lienId);
            assertTrue(handler.borrowerConfirmed(lienId), "a lien was recorded without its borrower's confirmation");
            assertEq(recordedBorrower, proposedBorrower);
        }
    }
}
