// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title MockFiatToken
/// @notice A stand-in for Circle's FiatToken (USDC, FiatTokenV2_2) where a real one cannot be
/// reached: storage set by `initialize` (as behind USDC's proxy, so its code can be put at Circle's
/// address on a local chain), a master minter that configures minters with allowances, a pauser, a
/// blacklister, EIP-3009 with FiatTokenV2's exact revert strings and strict window checks, and an
/// EIP-712 domain readable only through `name()` and `version()` (no EIP-5267 `eip712Domain()`).
/// @dev Only what order-relay exercises; not Circle's code.
contract MockFiatToken {
    // ---------------------------------------------------------------- events

    /// @notice `value` moved from `from` to `to`.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice `owner` let `spender` move `value`.
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice `minter` minted `amount` to `to`.
    event Mint(address indexed minter, address indexed to, uint256 amount);
    /// @notice The master minter let `minter` mint up to `minterAllowedAmount`.
    event MinterConfigured(address indexed minter, uint256 minterAllowedAmount);
    /// @notice `authorizer`'s authorization `nonce` was used.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    /// @notice `authorizer`'s authorization `nonce` was canceled.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    /// @notice Transfers stopped.
    event Pause();
    /// @notice Transfers resumed.
    event Unpause();
    /// @notice `account` can no longer send or receive.
    event Blacklisted(address indexed account);

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

    /// @notice The token's name (USDC's EIP-712 domain name).
    string public name;
    /// @notice The token's symbol.
    string public symbol;
    /// @notice The fiat currency it stands for.
    string public currency;
    /// @notice Decimals (6 for USDC).
    uint8 public decimals;
    /// @notice Who configures minters.
    address public masterMinter;
    /// @notice Who may pause.
    address public pauser;
    /// @notice Who may blacklist.
    address public blacklister;
    /// @notice Who owns the token.
    address public owner;
    /// @notice True while transfers are stopped.
    bool public paused;
    /// @notice Every token in existence.
    uint256 public totalSupply;

    bool private _initialized;
    mapping(address account => uint256) private _balances;
    mapping(address owner => mapping(address spender => uint256)) private _allowances;
    mapping(address minter => bool) private _minters;
    mapping(address minter => uint256) private _minterAllowed;
    mapping(address account => bool) private _blacklisted;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;

    // ---------------------------------------------------------------- modifiers

    modifier whenNotPaused() {
        _whenNotPaused();
        _;
    }

    modifier notBlacklisted(address account) {
        _notBlacklisted(account);
        _;
    }

    // ---------------------------------------------------------------- functions

    /// @notice Sets the token up once (USDC is set up through its proxy the same way).
    function initialize(
        string memory tokenName,
        string memory tokenSymbol,
        string memory tokenCurrency,
        uint8 tokenDecimals,
        address newMasterMinter,
        address newPauser,
        address newBlacklister,
        address newOwner
    ) external {
        require(!_initialized, "FiatToken: contract is already initialized");
        require(newMasterMinter != address(0), "FiatToken: new masterMinter is the zero address");
        name = tokenName;
        symbol = tokenSymbol;
        currency = tokenCurrency;
        decimals = tokenDecimals;
        masterMinter = newMasterMinter;
        pauser = newPauser;
        blacklister = newBlacklister;
        owner = newOwner;
        _initialized = true;
    }

    /// @notice "2", the EIP-712 domain version of FiatTokenV2.
    function version() external pure returns (string memory) {
        return "2";
    }

    /// @notice The EIP-712 domain separator, for the current chain.
    // forge-lint: disable-next-line(mixed-case-function)
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256(bytes("2")),
                block.chainid,
                address(this)
            )
        );
    }

    /// @notice `account`'s balance.
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @notice What `spender` may still move of `tokenOwner`'s.
    function allowance(address tokenOwner, address spender) external view returns (uint256) {
        return _allowances[tokenOwner][spender];
    }

    /// @notice True when `account` is a minter.
    function isMinter(address account) external view returns (bool) {
        return _minters[account];
    }

    /// @notice What `minter` may still mint.
    function minterAllowance(address minter) external view returns (uint256) {
        return _minterAllowed[minter];
    }

    /// @notice True when `account` is blacklisted.
    function isBlacklisted(address account) external view returns (bool) {
        return _blacklisted[account];
    }

    /// @notice True once `authorizer`'s `nonce` was used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice The master minter lets `minter` mint up to `minterAllowedAmount`.
    function configureMinter(address minter, uint256 minterAllowedAmount) external whenNotPaused returns (bool) {
        require(msg.sender == masterMinter, "FiatToken: caller is not the masterMinter");
        _minters[minter] = true;
        _minterAllowed[minter] = minterAllowedAmount;
        emit MinterConfigured(minter, minterAllowedAmount);
        return true;
    }

    /// @notice A minter mints `amount` to `to`, within its allowance.
    function mint(address to, uint256 amount)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(to)
        returns (bool)
    {
        require(_minters[msg.sender], "FiatToken: caller is not a minter");
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        require(amount <= _minterAllowed[msg.sender], "FiatToken: mint amount exceeds minterAllowance");
        totalSupply += amount;
        _balances[to] += amount;
        _minterAllowed[msg.sender] -= amount;
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    /// @notice The pauser stops every transfer, mint and authorization.
    function pause() external {
        require(msg.sender == pauser, "Pausable: caller is not the pauser");
        paused = true;
        emit Pause();
    }

    /// @notice The pauser resumes them.
    function unpause() external {
        require(msg.sender == pauser, "Pausable: caller is not the pauser");
        paused = false;
        emit Unpause();
    }

    /// @notice The blacklister stops `account` from sending or receiving.
    function blacklist(address account) external {
        require(msg.sender == blacklister, "Blacklistable: caller is not the blacklister");
        _blacklisted[account] = true;
        emit Blacklisted(account);
    }

    /// @notice Lets `spender` move up to `value` of the caller's.
    function approve(address spender, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(spender)
        returns (bool)
    {
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @notice Moves `value` of the caller's to `to`.
    function transfer(address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(to)
        returns (bool)
    {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Moves `value` of `from`'s to `to` within the caller's allowance.
    function transferFrom(address from, address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(from)
        notBlacklisted(to)
        returns (bool)
    {
        require(value <= _allowances[from][msg.sender], "ERC20: transfer amount exceeds allowance");
        _allowances[from][msg.sender] -= value;
        _transfer(from, to, value);
        return true;
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
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    /// @notice Like `transferWithAuthorization`, but only the payee `to` may submit it.
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
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    /// @notice Cancels `authorizer`'s unused authorization `nonce` with their signature.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)
        external
        whenNotPaused
    {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
        _requireSigner(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), authorizer, v, r, s);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @dev FiatTokenV2's order of checks: window (strict both ways), nonce, signature; then the transfer.
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
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        // forge-lint: disable-next-line(block-timestamp)
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_authorizationStates[from][nonce], "FiatTokenV2: authorization is used or canceled");
        _requireSigner(keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce)), from, v, r, s);
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    /// @dev Reverts "FiatTokenV2: invalid signature" unless (v, r, s) is `expected`'s over `structHash`.
    function _requireSigner(bytes32 structHash, address expected, uint8 v, bytes32 r, bytes32 s) private view {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, v, r, s);
        require(err == ECDSA.RecoverError.NoError && signer == expected, "FiatTokenV2: invalid signature");
    }

    function _transfer(address from, address to, uint256 value) private {
        require(from != address(0), "ERC20: transfer from the zero address");
        require(to != address(0), "ERC20: transfer to the zero address");
        require(value <= _balances[from], "ERC20: transfer amount exceeds balance");
        _balances[from] -= value;
        _balances[to] += value;
        emit Transfer(from, to, value);
    }

    function _whenNotPaused() private view {
        require(!paused, "Pausable: paused");
    }

    function _notBlacklisted(address account) private view {
        require(!_blacklisted[account], "Blacklistable: account is blacklisted");
    }
}
