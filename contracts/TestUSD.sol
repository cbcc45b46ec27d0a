// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title Paygate Test USD (TUSD)
/// @notice A worthless 6-decimal dollar token for Paygate's local chain. It has the payment surface of Circle's
/// FiatToken v2 (USDC, EURC): ERC-20, EIP-2612 `permit` and EIP-3009 transfer/receive with authorization, with the
/// same EIP-712 types, the same `version()` getter and the same validity rules, so that the gateway pays a local
/// payment through exactly the code path it uses for USDC on a live chain.
/// @dev Written for Paygate, without dependencies. Only the deployer can mint (the local faucet).
contract TestUSD {
    string public constant name = "Paygate Test USD";
    string public constant symbol = "TUSD";
    uint8 public constant decimals = 6;
    /// @notice The EIP-712 domain version; FiatToken exposes its own the same way, so clients read it on-chain.
    string public constant version = "1";

    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// @dev secp256k1n / 2. For every valid (r, s) there is a valid (r, n - s); accepting only the lower half makes
    /// each signature unique (EIP-2), so a signature can never be replayed in its malleated form.
    uint256 private constant HALF_CURVE_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable minter;
    uint256 private immutable cachedChainId;
    bytes32 private immutable cachedDomainSeparator;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    /// @notice EIP-2612 permit nonces (sequential).
    mapping(address => uint256) public nonces;
    /// @dev EIP-3009 nonces are random 32-byte values chosen by the signer, so they are a set, not a counter.
    mapping(address => mapping(bytes32 => bool)) private usedAuthorizations;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    error NotMinter(address caller);
    error InvalidReceiver(address to);
    error InsufficientBalance(address from, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error InvalidSignature();
    error PermitExpired(uint256 deadline);
    error AuthorizationNotYetValid(uint256 validAfter);
    error AuthorizationExpired(uint256 validBefore);
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);
    error CallerMustBePayee(address caller, address payee);

    constructor() {
        minter = msg.sender;
        cachedChainId = block.chainid;
        cachedDomainSeparator = buildDomainSeparator();
    }

    /// @notice The EIP-712 domain separator; recomputed if the chain id differs from deployment (a fork).
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return block.chainid == cachedChainId ? cachedDomainSeparator : buildDomainSeparator();
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        if (to == address(0)) revert InvalidReceiver(to);
        totalSupply += value;
        // Cannot overflow: no balance exceeds totalSupply, which the checked addition above bounds.
        unchecked {
            balanceOf[to] += value;
        }
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        setAllowance(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance(msg.sender, allowed, value);
            unchecked {
                allowance[from][msg.sender] = allowed - value;
            }
        }
        move(from, to, value);
        return true;
    }

    /// @notice EIP-2612: sets `spender`'s allowance over `owner`'s tokens with `owner`'s signature.
    function permit(
        address owner,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (block.timestamp > deadline) revert PermitExpired(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonces[owner]++, deadline));
        requireSigner(structHash, owner, v, r, s);
        setAllowance(owner, spender, value);
    }

    /// @notice EIP-3009: anyone (a relayer) executes a transfer that `from` signed.
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
        bytes32 structHash = keccak256(
            abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        useAuthorization(structHash, from, validAfter, validBefore, nonce, v, r, s);
        move(from, to, value);
    }

    /// @notice EIP-3009: like transferWithAuthorization, but only the payee may submit it, so a front-runner cannot
    /// trigger the transfer outside the payee's own transaction.
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
        if (msg.sender != to) revert CallerMustBePayee(msg.sender, to);
        bytes32 structHash = keccak256(
            abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        useAuthorization(structHash, from, validAfter, validBefore, nonce, v, r, s);
        move(from, to, value);
    }

    /// @notice EIP-3009: the authorizer voids an authorization it has not used yet.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        if (usedAuthorizations[authorizer][nonce]) revert AuthorizationAlreadyUsed(authorizer, nonce);
        requireSigner(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), authorizer, v, r, s);
        usedAuthorizations[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @notice EIP-3009: whether the nonce was used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return usedAuthorizations[authorizer][nonce];
    }

    /// @dev FiatToken's rules: valid strictly after `validAfter` and strictly before `validBefore`.
    function useAuthorization(
        bytes32 structHash,
        address authorizer,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        if (block.timestamp <= validAfter) revert AuthorizationNotYetValid(validAfter);
        if (block.timestamp >= validBefore) revert AuthorizationExpired(validBefore);
        if (usedAuthorizations[authorizer][nonce]) revert AuthorizationAlreadyUsed(authorizer, nonce);
        requireSigner(structHash, authorizer, v, r, s);
        usedAuthorizations[authorizer][nonce] = true;
        emit AuthorizationUsed(authorizer, nonce);
    }

    function requireSigner(bytes32 structHash, address expected, uint8 v, bytes32 r, bytes32 s) private view {
        if (uint256(s) > HALF_CURVE_ORDER || (v != 27 && v != 28)) revert InvalidSignature();
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        address signer = ecrecover(digest, v, r, s);
        // ecrecover answers address(0) for an invalid signature; a zero `expected` must never match it.
        if (signer == address(0) || signer != expected) revert InvalidSignature();
    }

    function move(address from, address to, uint256 value) private {
        if (to == address(0)) revert InvalidReceiver(to);
        uint256 balance = balanceOf[from];
        if (balance < value) revert InsufficientBalance(from, balance, value);
        unchecked {
            balanceOf[from] = balance - value;
            balanceOf[to] += value;
        }
        emit Transfer(from, to, value);
    }

    function setAllowance(address owner, address spender, uint256 value) private {
        allowance[owner][spender] = value;
        emit Approval(owner, spender, value);
    }

    function buildDomainSeparator() private view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this))
        );
    }
}
