// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title MockEIP3009Token
/// @notice A USDC-shaped test token: 6 decimals, open minting, EIP-3009 transfers with authorization,
/// EIP-712 domain readable through EIP-5267 `eip712Domain()`.
/// @dev Reverts with USDC's plain require strings (the relayer matches them by substring).
contract MockEIP3009Token is ERC20, EIP712 {
    // ---------------------------------------------------------------- events

    /// @notice `authorizer`'s authorization `nonce` was used.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    /// @notice `authorizer`'s authorization `nonce` was canceled.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    // ---------------------------------------------------------------- storage

    /// @notice EIP-712 type hash of `transferWithAuthorization`.
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice EIP-712 type hash of `receiveWithAuthorization`.
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice EIP-712 type hash of `cancelAuthorization`.
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;

    // ---------------------------------------------------------------- functions

    constructor(string memory name_, string memory version_) ERC20(name_, "USDC") EIP712(name_, version_) {}

    /// @notice 6, like USDC.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` to `to`; open to anyone (test token).
    function mint(address to, uint256 amount) public {
        _mint(to, amount);
    }

    /// @notice The EIP-712 domain separator (USDC exposes it too).
    // forge-lint: disable-next-line(mixed-case-function)
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice True once `authorizer`'s `nonce` was used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice Moves `value` from `from` to `to` with `from`'s signed authorization; anyone may submit it.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _useAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s
        );
    }

    /// @notice Like `transferWithAuthorization`, but only the payee `to` may submit it (no front-running).
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "caller must be the payee");
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    /// @notice Cancels `authorizer`'s unused authorization `nonce` with their signature.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        require(!_authorizationStates[authorizer][nonce], "authorization used");
        _requireSigner(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), authorizer, v, r, s);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @dev Checks window, nonce and signature, marks the nonce used, then moves the funds with the
    /// internal `_transfer` (so a subclass overriding `transfer` does not change authorizations).
    function _useAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        // forge-lint: disable-next-line(block-timestamp)
        require(block.timestamp >= validAfter, "authorization not yet valid");
        // forge-lint: disable-next-line(block-timestamp)
        require(block.timestamp <= validBefore, "authorization expired");
        require(!_authorizationStates[from][nonce], "authorization used");
        _requireSigner(
            keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce)), from, v, r, s
        );
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    /// @dev Reverts with "invalid signature" unless (v, r, s) is `expected`'s signature of the typed data
    /// `structHash`; ECDSA's own errors never escape.
    function _requireSigner(bytes32 structHash, address expected, uint8 v, bytes32 r, bytes32 s) private view {
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(_hashTypedDataV4(structHash), v, r, s);
        require(err == ECDSA.RecoverError.NoError && signer == expected, "invalid signature");
    }
}
