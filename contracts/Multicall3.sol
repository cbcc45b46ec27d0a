// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title Multicall3 (the subset Paygate uses)
/// @notice Batches read calls into one `eth_call`. It implements, with the same signatures and return shapes, the
/// part of Multicall3's interface (https://github.com/mds1/multicall3) that viem and the gateway call: `aggregate3`
/// and the block and balance getters. The local chain places it at Multicall3's canonical address,
/// 0xcA11bde05977b3631167028862bE2a173976CA11, where every live chain has the real one, so that the same client code
/// runs against both.
/// @dev Written for Paygate rather than vendored: the rest of Multicall3 (aggregate, tryAggregate, value-carrying
/// variants) has no caller here.
contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice Runs each call in order; a failing call reverts the batch unless it allows failure.
    function aggregate3(Call3[] calldata calls) external returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            Call3 calldata call = calls[i];
            (bool success, bytes memory returnData) = call.target.call(call.callData);
            // The same revert reason as the canonical contract, which clients may recognise.
            require(success || call.allowFailure, "Multicall3: call failed");
            results[i] = Result(success, returnData);
        }
    }

    function getEthBalance(address addr) external view returns (uint256 balance) {
        return addr.balance;
    }

    function getBlockNumber() external view returns (uint256 blockNumber) {
        return block.number;
    }

    function getCurrentBlockTimestamp() external view returns (uint256 timestamp) {
        return block.timestamp;
    }

    function getChainId() external view returns (uint256 chainid) {
        return block.chainid;
    }
}
